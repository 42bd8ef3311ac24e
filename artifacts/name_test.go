package artifacts

import (
	"errors"
	"strings"
	"testing"
)

func TestParseName(t *testing.T) {
	tests := []struct {
		name   string
		in     string
		want   Name
		errHas string // "" means valid
	}{
		{"source-file", "classes/src/greet/greet.go", Name{Kind: Source, Path: "classes/src/greet/greet.go"}, ""},
		{"plain-file", "files/data.txt", Name{Kind: File, Path: "files/data.txt"}, ""},
		{"nested-file", "files/a/b/c.csv", Name{Kind: File, Path: "files/a/b/c.csv"}, ""},
		{"hash-in-file", "files/a#b", Name{Kind: File, Path: "files/a#b"}, ""},
		{"archive", "archives/set.tar.gz", Name{Kind: Archive, Path: "archives/set.tar.gz", Unpack: "files/set.tar.gz", format: formatTarGz}, ""},
		{"archive-alias", "archives/set.zip#data", Name{Kind: Archive, Path: "archives/set.zip", Unpack: "files/data", format: formatZip}, ""},
		{"archive-tgz-upper", "archives/S.TGZ", Name{Kind: Archive, Path: "archives/S.TGZ", Unpack: "files/S.TGZ", format: formatTarGz}, ""},
		{"archive-tar", "archives/x.tar", Name{Kind: Archive, Path: "archives/x.tar", Unpack: "files/x.tar", format: formatTar}, ""},
		{"dot-dot", "../x", Name{}, "must start with classes/src/, files/ or archives/"},
		{"absolute", "/etc/x", Name{}, "must be relative"},
		{"escape-from-files", "files/../../x", Name{}, ". or .. path element"},
		{"dot-element", "files/./x", Name{}, ". or .. path element"},
		{"empty-element", "files//x", Name{}, "empty path element"},
		{"trailing-slash", "files/x/", Name{}, "empty path element"},
		{"kind-only", "files/", Name{}, "nothing after files/"},
		{"empty", "", Name{}, "empty name"},
		{"journal", "classes/repl/0001.go", Name{}, "must start with"},
		{"session-json", "session.json", Name{}, "must start with"},
		{"private-tmp", ".tmp/x", Name{}, "must start with"},
		{"nul", "files/a\x00b", Name{}, "control character"},
		{"newline", "files/a\nb", Name{}, "control character"},
		{"backslash", `files/..\x`, Name{}, "backslash"},
		{"device-name", "files/con", Name{}, "reserved device name"},
		{"device-name-ext", "classes/src/p/aux.go", Name{}, "reserved device name"},
		{"bad-utf8", "files/\xff", Name{}, "UTF-8"},
		{"too-long", "files/" + strings.Repeat("a", 1100), Name{}, "longer than 1024"},
		{"long-element", "files/" + strings.Repeat("a", 256), Name{}, "longer than 255"},
		{"archive-other-type", "archives/x.rar", Name{}, "unsupported archive type"},
		{"archive-subfolder", "archives/sub/x.tar", Name{}, "no subfolder"},
		{"archive-empty-alias", "archives/x.tar#", Name{}, "alias"},
		{"archive-alias-escape", "archives/x.tar#..", Name{}, "alias"},
		{"archive-alias-slash", "archives/x.tar#a/b", Name{}, "alias"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			got, err := ParseName(tt.in)
			if tt.errHas == "" {
				if err != nil || got != tt.want {
					t.Errorf("got %+v, %v; want %+v, nil", got, err, tt.want)
				}
				return
			}
			if !errors.Is(err, ErrBadName) || !strings.Contains(err.Error(), tt.errHas) {
				t.Errorf("got %v; want ErrBadName saying %q", err, tt.errHas)
			}
			if err != nil && strings.Contains(err.Error(), "\n") {
				t.Errorf("got a multi-line error %q; want one line", err)
			}
		})
	}
}

func TestErrorText(t *testing.T) {
	_, err := ParseName("../x")
	want := `artifacts: "../x": name must start with classes/src/, files/ or archives/`
	if err == nil || err.Error() != want {
		t.Errorf("got %v; want %s", err, want)
	}
}
