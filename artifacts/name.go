package artifacts

import (
	"path"
	"path/filepath"
	"strings"
	"unicode/utf8"
)

// Kind is the folder an artifact belongs to; it decides the overwrite rule.
type Kind uint8

// The kinds of artifacts, after the folders of the session layout.
const (
	Source  Kind = iota + 1 // classes/src/P/...: Go source packages; may be overwritten
	File                    // files/...: plain files; never overwritten with other bytes
	Archive                 // archives/A: kept as uploaded and unpacked into files/A
)

// Dir is the kind's folder in the session directory, e.g. "classes/src".
func (k Kind) Dir() string {
	switch k {
	case Source:
		return "classes/src"
	case File:
		return "files"
	case Archive:
		return "archives"
	}
	return ""
}

func (k Kind) String() string { return k.Dir() }

// Name is a validated artifact name.
type Name struct {
	Kind Kind
	// Path is the slash path from the session directory, without any
	// "#alias": "classes/src/greet/greet.go", "files/data.txt",
	// "archives/set.tar.gz". It is filepath.IsLocal and inside Kind.Dir().
	Path string
	// Unpack is, for an archive, where it is unpacked: "files/" and the
	// alias after '#', or the archive's file name. Empty for other kinds.
	Unpack string
	format format
}

// Rel is the path below the kind's folder: "greet/greet.go" for
// "classes/src/greet/greet.go".
func (n Name) Rel() string { return n.Path[len(n.Kind.Dir())+1:] }

// format is an archive format, known from the name's suffix.
type format uint8

const (
	formatNone format = iota
	formatTar
	formatTarGz
	formatZip
)

const (
	maxNameLen    = 1024 // bytes in a whole name
	maxElementLen = 255  // bytes in one path element (NAME_MAX)
)

var kindPrefixes = []struct {
	prefix string
	kind   Kind
}{
	{"classes/src/", Source},
	{"files/", File},
	{"archives/", Archive},
}

// ParseName validates an artifact name: relative, starting with
// classes/src/, files/ or archives/, with no empty, "." or ".." elements,
// no control characters or backslashes, no device names (CON, NUL, AUX...),
// so that it lands inside its kind's folder. An archive is one file directly
// in archives/ with a .tar, .tar.gz, .tgz or .zip suffix, optionally followed
// by "#ALIAS", the name of the folder it is unpacked into under files/.
func ParseName(name string) (Name, error) {
	bad := func(msg string) (Name, error) { return Name{}, errf(name, ErrBadName, "%s", msg) }
	switch {
	case name == "":
		return bad("empty name")
	case len(name) > maxNameLen:
		return bad("name longer than 1024 bytes")
	case !utf8.ValidString(name):
		return bad("name is not valid UTF-8")
	case strings.HasPrefix(name, "/"):
		return bad("name must be relative and start with classes/src/, files/ or archives/")
	}
	if msg := badChars(name); msg != "" {
		return bad(msg)
	}
	var n Name
	for _, k := range kindPrefixes {
		if strings.HasPrefix(name, k.prefix) {
			n.Kind = k.kind
			break
		}
	}
	if n.Kind == 0 {
		return bad("name must start with classes/src/, files/ or archives/")
	}
	p, alias := name, ""
	if n.Kind == Archive {
		if i := strings.IndexByte(name, '#'); i >= 0 {
			p, alias = name[:i], name[i+1:]
			if msg := badElement(alias); msg != "" {
				return bad("alias after '#': " + msg)
			}
		}
	}
	rel := p[len(n.Kind.Dir())+1:]
	if rel == "" {
		return bad("name has nothing after " + n.Kind.Dir() + "/")
	}
	for _, e := range strings.Split(rel, "/") {
		if msg := badElement(e); msg != "" {
			return bad(msg)
		}
	}
	if !filepath.IsLocal(p) { // implied by the checks above; kept as the last word
		return bad("name is not local")
	}
	n.Path = p
	if n.Kind == Archive {
		if strings.Contains(rel, "/") {
			return bad("archive names are archives/FILE[#ALIAS], with no subfolder")
		}
		if n.format = formatOf(rel); n.format == formatNone {
			return bad("unsupported archive type; use .tar, .tar.gz, .tgz or .zip")
		}
		if alias == "" {
			alias = rel
		}
		n.Unpack = "files/" + alias
	}
	return n, nil
}

func formatOf(file string) format {
	f := strings.ToLower(file)
	switch {
	case strings.HasSuffix(f, ".tar.gz"), strings.HasSuffix(f, ".tgz"):
		return formatTarGz
	case strings.HasSuffix(f, ".tar"):
		return formatTar
	case strings.HasSuffix(f, ".zip"):
		return formatZip
	}
	return formatNone
}

// badChars says what is wrong with the characters of s, or "".
func badChars(s string) string {
	for _, r := range s {
		switch {
		case r < 0x20 || r == 0x7f || (r >= 0x80 && r < 0xa0):
			return "name holds a control character"
		case r == '\\':
			return "name holds a backslash"
		}
	}
	return ""
}

// badElement says what is wrong with one path element, or "".
func badElement(e string) string {
	switch {
	case e == "":
		return "name has an empty path element"
	case e == "." || e == "..":
		return "name holds a . or .. path element"
	case len(e) > maxElementLen:
		return "path element longer than 255 bytes"
	case strings.Contains(e, "/"):
		return "holds a /"
	case isDeviceName(e):
		return "path element " + e + " is a reserved device name"
	}
	return badChars(e)
}

// isDeviceName reports Windows' reserved device names (CON, NUL, COM1,
// aux.go...): harmless on Linux, but Go's module rules refuse them too and a
// session's files may well be copied to other systems.
func isDeviceName(e string) bool {
	base, _, _ := strings.Cut(e, ".")
	base = strings.ToUpper(strings.TrimRight(base, " "))
	switch base {
	case "CON", "PRN", "AUX", "NUL", "CONIN$", "CONOUT$":
		return true
	}
	if len(base) == 4 && (strings.HasPrefix(base, "COM") || strings.HasPrefix(base, "LPT")) {
		return base[3] >= '0' && base[3] <= '9'
	}
	return false
}

// localEntry cleans and checks the name of an archive entry; "" (with a nil
// error) means the entry is the archive's own top folder ("./").
func localEntry(raw string) (string, string) {
	if strings.HasPrefix(raw, "/") {
		return "", "absolute name"
	}
	e := strings.TrimSuffix(raw, "/")
	for strings.HasPrefix(e, "./") {
		e = e[2:]
	}
	if e == "" || e == "." {
		return "", ""
	}
	if !utf8.ValidString(e) {
		return "", "name is not valid UTF-8"
	}
	if len(e) > maxNameLen {
		return "", "name longer than 1024 bytes"
	}
	for _, el := range strings.Split(e, "/") {
		if el == ".." {
			return "", "name escapes the archive"
		}
		if msg := badElement(el); msg != "" {
			return "", msg
		}
	}
	if !filepath.IsLocal(e) || path.Clean(e) != e {
		return "", "name is not local"
	}
	return e, ""
}
