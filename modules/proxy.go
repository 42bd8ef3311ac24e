// Package modules fetches Go modules for sessions, the Go counterpart of
// Spark Connect's per-session packages: a module and its dependencies come
// through the host's module proxy (GOPROXY protocol), are verified against
// the checksum database (or, for modules matched by GONOSUMDB, pinned on
// first use), kept once in a host-wide read-only cache, and installed into
// one session's classes/src, where yaegi imports them. Two sessions can hold
// two versions of one module.
package modules

import (
	"context"
	"errors"
	"fmt"
	"io"
	"net/http"
	"net/url"
	"os"
	"path/filepath"
	"strings"

	"golang.org/x/mod/module"
)

// Bounds on what a proxy may make the host hold.
const (
	maxInfo = 64 << 10
	maxMod  = 4 << 20
	maxZip  = 500 << 20 // x/mod/zip's own limit on a module zip
	maxList = 1 << 20
)

// ErrDisabled is returned when the proxy is "off".
var ErrDisabled = errors.New("module downloads are disabled (--goproxy off)")

// notFound is a proxy's answer that it does not have the thing: the next
// proxy of the list is asked, as the go command does for 404 and 410.
type notFound struct{ what string }

func (e *notFound) Error() string { return e.what + ": not found" }

// proxyList is a parsed GOPROXY: each entry an http(s) or file URL. "direct"
// (fetching from version control) is not supported: the host runs no VCS
// tools; "off" disables all downloads.
type proxyList struct {
	urls   []string
	client *http.Client
}

func parseProxyList(s string, client *http.Client) (proxyList, error) {
	pl := proxyList{client: client}
	if pl.client == nil {
		pl.client = http.DefaultClient
	}
	for _, e := range strings.FieldsFunc(s, func(r rune) bool { return r == ',' || r == '|' }) {
		switch e = strings.TrimSpace(e); e {
		case "off":
			return proxyList{}, ErrDisabled
		case "direct", "":
			continue
		}
		u, err := url.Parse(e)
		if err != nil || (u.Scheme != "https" && u.Scheme != "http" && u.Scheme != "file") {
			return proxyList{}, fmt.Errorf("goproxy entry %q: want an http(s) or file URL", e)
		}
		pl.urls = append(pl.urls, strings.TrimSuffix(e, "/"))
	}
	if len(pl.urls) == 0 {
		return proxyList{}, ErrDisabled
	}
	return pl, nil
}

// fetch reads the proxy file <escaped path>/@v/<file> (or @latest when file
// is "@latest"), trying each proxy in turn on "not found", at most limit bytes.
func (pl proxyList) fetch(ctx context.Context, path, file string, limit int64) ([]byte, error) {
	esc, err := module.EscapePath(path)
	if err != nil {
		return nil, err
	}
	rel := esc + "/@v/" + file
	if file == "@latest" {
		rel = esc + "/@latest"
	}
	var last error
	for _, base := range pl.urls {
		b, err := pl.get(ctx, base, rel, limit)
		var nf *notFound
		if errors.As(err, &nf) {
			last = err
			continue
		}
		return b, err
	}
	return nil, last
}

func (pl proxyList) get(ctx context.Context, base, rel string, limit int64) ([]byte, error) {
	if strings.HasPrefix(base, "file://") {
		u, err := url.Parse(base)
		if err != nil {
			return nil, err
		}
		f, err := os.Open(filepath.Join(u.Path, filepath.FromSlash(rel)))
		if errors.Is(err, os.ErrNotExist) {
			return nil, &notFound{rel}
		}
		if err != nil {
			return nil, err
		}
		defer f.Close()
		return readBounded(f, limit, rel)
	}
	req, err := http.NewRequestWithContext(ctx, http.MethodGet, base+"/"+rel, nil)
	if err != nil {
		return nil, err
	}
	resp, err := pl.client.Do(req)
	if err != nil {
		return nil, err
	}
	defer resp.Body.Close()
	switch {
	case resp.StatusCode == http.StatusNotFound || resp.StatusCode == http.StatusGone:
		return nil, &notFound{rel}
	case resp.StatusCode != http.StatusOK:
		return nil, fmt.Errorf("%s/%s: %s", base, rel, resp.Status)
	}
	return readBounded(resp.Body, limit, rel)
}

func readBounded(r io.Reader, limit int64, what string) ([]byte, error) {
	b, err := io.ReadAll(io.LimitReader(r, limit+1))
	if err != nil {
		return nil, err
	}
	if int64(len(b)) > limit {
		return nil, fmt.Errorf("%s: larger than %d bytes", what, limit)
	}
	return b, nil
}
