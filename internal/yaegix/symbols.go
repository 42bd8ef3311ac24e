package yaegix

import (
	"os"
	"strings"
)

// The keys of yaegi's symbol tables (interp.Exports, stdlib.Symbols) are
// "IMPORTPATH/NAME": the package's path and the name code refers to it by
// ("math/rand/v2/rand"); interp.Use records NAME as the package's name.

// SplitKey splits a symbol table key into the package's path and name; ok
// is false for a key that names no package (WrappersKey).
func SplitKey(key string) (path, name string, ok bool) {
	slash := strings.LastIndex(key, "/")
	if slash <= 0 {
		return "", "", false
	}
	return key[:slash], key[slash+1:], true
}

// WrappersKey is the entry of stdlib.Symbols that is no package: yaegi's
// map of the interfaces it wraps interpreted values in. Without it fmt does
// not see the String and Error methods of interpreted types.
const WrappersKey = "."

// IsWrapperName reports a symbol of a table that is a generated interface
// wrapper (fmt's "_Stringer"), not a member of the package.
func IsWrapperName(name string) bool { return strings.HasPrefix(name, "_") }

// SpecialStdio, in the environment when interp.New runs, makes yaegi bind
// the code's os.Stdout and os.Stderr to the interpreter's Options.Stdout and
// Stderr (typed io.Writer) instead of the process's fd 1 and 2.
const SpecialStdio = "YAEGI_SPECIAL_STDIO=1"

// SetSpecialStdio puts SpecialStdio in this process's environment.
func SetSpecialStdio() {
	name, value, _ := strings.Cut(SpecialStdio, "=")
	os.Setenv(name, value)
}
