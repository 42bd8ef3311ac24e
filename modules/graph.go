package modules

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"strings"

	"golang.org/x/mod/modfile"
	"golang.org/x/mod/module"
	"golang.org/x/mod/semver"
)

// maxGraph bounds the module versions one :get may visit.
const maxGraph = 500

// resolve turns a query ("", "latest" or a semantic version) into a version
// of path that the proxy has.
func (c *cache) resolve(ctx context.Context, path, query string) (string, error) {
	if query != "" && query != "latest" {
		if !semver.IsValid(query) || semver.Canonical(query) != query {
			return "", fmt.Errorf("%s@%s: want a version like v1.2.3 or latest", path, query)
		}
		if err := module.Check(path, query); err != nil {
			return "", err
		}
		return query, nil
	}
	b, err := c.proxy.fetch(ctx, path, "@latest", maxInfo)
	var nf *notFound
	if errors.As(err, &nf) {
		// Proxies without @latest (a file proxy made by hand): the highest
		// release in the list, as the go command does.
		if b, err = c.proxy.fetch(ctx, path, "list", maxList); err == nil {
			return latestOf(path, string(b))
		}
	}
	if err != nil {
		return "", err
	}
	var info struct{ Version string }
	if err := json.Unmarshal(b, &info); err != nil || !semver.IsValid(info.Version) {
		return "", fmt.Errorf("%s@latest: the proxy's answer has no valid version", path)
	}
	return info.Version, module.Check(path, info.Version)
}

func latestOf(path, list string) (string, error) {
	best := ""
	for _, v := range strings.Fields(list) {
		if semver.IsValid(v) && semver.Prerelease(v) == "" && semver.Compare(v, best) > 0 {
			best = v
		}
	}
	if best == "" {
		return "", fmt.Errorf("%s: the proxy lists no release", path)
	}
	return best, nil
}

// buildList is minimal version selection from main: for each module path
// reachable through go.mod requirements, the highest version required.
// Replace and exclude directives of dependencies are ignored, as the go
// command ignores them outside the main module.
func (c *cache) buildList(ctx context.Context, main module.Version) ([]module.Version, error) {
	selected := map[string]string{main.Path: main.Version}
	order := []string{main.Path}
	seen := map[module.Version]bool{}
	queue := []module.Version{main}
	for len(queue) > 0 {
		m := queue[0]
		queue = queue[1:]
		if seen[m] {
			continue
		}
		if seen[m] = true; len(seen) > maxGraph {
			return nil, fmt.Errorf("%s: more than %d module versions in its requirement graph", main, maxGraph)
		}
		b, err := c.goMod(ctx, m)
		if err != nil {
			return nil, err
		}
		f, err := modfile.ParseLax("go.mod", b, nil)
		if err != nil {
			return nil, fmt.Errorf("%s: go.mod: %w", m, err)
		}
		if m == main && f.Module != nil && f.Module.Mod.Path != main.Path {
			return nil, fmt.Errorf("%s: its go.mod declares module %s", main, f.Module.Mod.Path)
		}
		for _, r := range f.Require {
			if err := module.Check(r.Mod.Path, r.Mod.Version); err != nil {
				return nil, fmt.Errorf("%s requires %s: %w", m, r.Mod, err)
			}
			if cur, ok := selected[r.Mod.Path]; !ok {
				order = append(order, r.Mod.Path)
				selected[r.Mod.Path] = r.Mod.Version
			} else if semver.Compare(r.Mod.Version, cur) > 0 {
				selected[r.Mod.Path] = r.Mod.Version
			}
			queue = append(queue, r.Mod)
		}
	}
	list := make([]module.Version, 0, len(order))
	for _, p := range order {
		list = append(list, module.Version{Path: p, Version: selected[p]})
	}
	return list, nil
}
