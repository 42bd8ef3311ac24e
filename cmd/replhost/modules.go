package main

import (
	"flag"
	"os"
	"path/filepath"

	"github.com/replhost/replhost/modules"
	"github.com/replhost/replhost/sandbox"
)

// moduleFlags are the settings of :get, each defaulting to the go
// command's variable of the host's environment.
type moduleFlags struct {
	goproxy, gosumdb, gonosumdb string
}

func (m *moduleFlags) register(fs *flag.FlagSet) {
	fs.StringVar(&m.goproxy, "goproxy", os.Getenv("GOPROXY"), "module proxies for :get, as GOPROXY (http(s) or file URLs; off: no :get); default: $GOPROXY")
	fs.StringVar(&m.gosumdb, "gosumdb", os.Getenv("GOSUMDB"), "checksum database that verifies fetched modules, as GOSUMDB (off: pin hashes on first use); default: $GOSUMDB or sum.golang.org")
	fs.StringVar(&m.gonosumdb, "gonosumdb", os.Getenv("GONOSUMDB"), "module path patterns pinned on first use instead of checked against the database, as GONOSUMDB")
}

// fetcher is the host's module fetcher, its cache in ROOT/modcache. An
// empty --goproxy means the go command's default, proxy.golang.org.
func (m *moduleFlags) fetcher(root string) (*modules.Fetcher, error) {
	proxy := m.goproxy
	if proxy == "" {
		proxy = "https://proxy.golang.org"
	}
	return modules.New(modules.Config{Proxy: proxy, SumDB: m.gosumdb, NoSumDB: m.gonosumdb,
		Cache: filepath.Join(root, "modcache")})
}

// moduleChecker says which standard packages fetched modules may import:
// the sessions' allowlist.
func moduleChecker(allow sandbox.Allowlist) modules.Checker { return allow.Allowed }
