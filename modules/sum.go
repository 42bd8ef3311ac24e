package modules

import (
	"bytes"
	"context"
	"errors"
	"fmt"
	"net/http"
	"os"
	"path/filepath"
	"strings"
	"sync"

	"golang.org/x/mod/module"
	"golang.org/x/mod/sumdb"
)

// The public checksum database and its verifier key, as the go command
// knows them.
const (
	defaultSumDB    = "sum.golang.org"
	defaultSumDBKey = "sum.golang.org+033de0ae+Ac4zctda0e5eza+HJyk9SxEdh+s3Ux18htTTAD8OuAn8"
)

// verifier checks a module's hashes: against the checksum database, or for
// modules matched by GONOSUMDB (or with GOSUMDB=off) against the hash
// recorded when the host first saw them (a go.sum of the host's own).
type verifier struct {
	db       *sumdb.Client // nil: no checksum database
	noSumDB  string        // GONOSUMDB patterns
	pinsFile string

	mu sync.Mutex // guards the pins file
}

// newVerifier parses gosumdb as GOSUMDB does: "off", a known name, or
// "name+hash+key [URL]".
func newVerifier(gosumdb, noSumDB, cacheDir string, client *http.Client) (*verifier, error) {
	v := &verifier{noSumDB: noSumDB, pinsFile: filepath.Join(cacheDir, "pins.sum")}
	if gosumdb == "off" {
		return v, nil
	}
	if gosumdb == "" || gosumdb == defaultSumDB {
		gosumdb = defaultSumDBKey
	}
	key, base, _ := strings.Cut(gosumdb, " ")
	name, _, _ := strings.Cut(key, "+")
	if base == "" {
		base = "https://" + name
	}
	if client == nil {
		client = http.DefaultClient
	}
	ops := &sumdbOps{key: key, name: name, base: strings.TrimSuffix(strings.TrimSpace(base), "/"),
		dir: filepath.Join(cacheDir, "sumdb"), client: client}
	v.db = sumdb.NewClient(ops)
	v.db.SetGONOSUMDB(noSumDB)
	return v, nil
}

// check verifies the h1 hash of a module file: key is "vers" for the zip,
// "vers/go.mod" for its go.mod.
func (v *verifier) check(m module.Version, file, hash string) error {
	vers := m.Version
	if file == "go.mod" {
		vers += "/go.mod"
	}
	line := m.Path + " " + vers
	if v.db != nil && !module.MatchPrefixPatterns(v.noSumDB, m.Path) {
		lines, err := v.db.Lookup(m.Path, vers)
		if err != nil {
			return fmt.Errorf("verify %s@%s: checksum database: %w", m.Path, m.Version, err)
		}
		for _, l := range lines {
			if l == line+" "+hash {
				return nil
			}
			if strings.HasPrefix(l, line+" ") {
				return fmt.Errorf("verify %s@%s: %s checksum mismatch: downloaded %s, checksum database has %s",
					m.Path, m.Version, file, hash, strings.TrimPrefix(l, line+" "))
			}
		}
		return fmt.Errorf("verify %s@%s: the checksum database has no %s hash", m.Path, m.Version, file)
	}
	return v.pin(line, hash)
}

// pin accepts a hash seen for the first time and records it; a later
// download with another hash is refused.
func (v *verifier) pin(line, hash string) error {
	v.mu.Lock()
	defer v.mu.Unlock()
	b, err := os.ReadFile(v.pinsFile)
	if err != nil && !errors.Is(err, os.ErrNotExist) {
		return err
	}
	for _, l := range strings.Split(string(b), "\n") {
		if got, ok := strings.CutPrefix(l, line+" "); ok {
			if got != hash {
				return fmt.Errorf("verify %s: checksum mismatch: downloaded %s, first seen as %s", line, hash, got)
			}
			return nil
		}
	}
	f, err := os.OpenFile(v.pinsFile, os.O_WRONLY|os.O_APPEND|os.O_CREATE, 0o644)
	if err != nil {
		return err
	}
	defer f.Close()
	_, err = f.WriteString(line + " " + hash + "\n") // one write: never a torn line
	return err
}

// sumdbOps are the checksum database client's outside world: HTTP reads of
// the database and a cache of its tiles and latest tree under the host's
// module cache.
type sumdbOps struct {
	key, name, base string
	dir             string
	client          *http.Client

	mu sync.Mutex // guards the latest-tree config file
}

func (o *sumdbOps) ReadRemote(path string) ([]byte, error) {
	req, err := http.NewRequestWithContext(context.Background(), http.MethodGet, o.base+path, nil)
	if err != nil {
		return nil, err
	}
	resp, err := o.client.Do(req)
	if err != nil {
		return nil, err
	}
	defer resp.Body.Close()
	if resp.StatusCode != http.StatusOK {
		return nil, fmt.Errorf("%s%s: %s", o.base, path, resp.Status)
	}
	return readBounded(resp.Body, 4<<20, path)
}

func (o *sumdbOps) ReadConfig(file string) ([]byte, error) {
	if file == "key" {
		return []byte(o.key), nil
	}
	b, err := os.ReadFile(o.configPath(file))
	if errors.Is(err, os.ErrNotExist) {
		return nil, nil // start from an empty tree
	}
	return b, err
}

func (o *sumdbOps) WriteConfig(file string, old, new []byte) error {
	o.mu.Lock()
	defer o.mu.Unlock()
	cur, err := o.ReadConfig(file)
	if err != nil {
		return err
	}
	if !bytes.Equal(cur, old) {
		return sumdb.ErrWriteConflict
	}
	return writeAtomic(o.configPath(file), new)
}

func (o *sumdbOps) configPath(file string) string {
	return filepath.Join(o.dir, "config", filepath.FromSlash(file))
}

func (o *sumdbOps) ReadCache(file string) ([]byte, error) {
	return os.ReadFile(filepath.Join(o.dir, "cache", filepath.FromSlash(file)))
}

func (o *sumdbOps) WriteCache(file string, data []byte) {
	writeAtomic(filepath.Join(o.dir, "cache", filepath.FromSlash(file)), data)
}

func (o *sumdbOps) Log(string) {}

// SecurityError: the client's Lookup then fails with sumdb.ErrSecurity,
// which refuses the download.
func (o *sumdbOps) SecurityError(string) {}

// writeAtomic writes data to name through a temporary file and a rename.
func writeAtomic(name string, data []byte) error {
	if err := os.MkdirAll(filepath.Dir(name), 0o755); err != nil {
		return err
	}
	f, err := os.CreateTemp(filepath.Dir(name), ".tmp-*")
	if err != nil {
		return err
	}
	defer os.Remove(f.Name())
	if _, err := f.Write(data); err != nil {
		f.Close()
		return err
	}
	if err := f.Chmod(0o644); err != nil {
		f.Close()
		return err
	}
	if err := f.Close(); err != nil {
		return err
	}
	return os.Rename(f.Name(), name)
}
