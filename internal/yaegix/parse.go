package yaegix

import (
	"go/ast"
	"go/parser"
	"go/token"
	"strings"

	"github.com/traefik/yaegi/interp"
)

// yaegi v0.16.1's Eval parses a cell itself (interp.parse): statements in
// the body of a func main, declarations as a file, both after a package
// clause on the first line, with DeclarationErrors and ParseComments, into
// the interpreter's FileSet under the name interp.DefaultSourceName. Before
// that it scans the first token and parses the package clause again for
// build constraints. ParseStmts and ParseDecls make the same tree once, so
// that the sandbox's own parse of a cell is the one yaegi compiles
// (Interpreter.CompileAST): compile errors and panics then carry Eval's
// positions, and Eval's texts.
const (
	stmtHead  = "package main; func main() {" // interp.wrapInMain
	declHead  = "package main;"
	parseMode = parser.DeclarationErrors | parser.ParseComments
)

// ParseStmts parses src as Eval parses StmtText(src), statements; the
// body of its func main is what CompileAST takes. An error is go/parser's
// (Eval's is the same). A nil body with no error: src starts with a
// keyword that makes Eval parse it as a file: give it to Eval as text.
func ParseStmts(yi *interp.Interpreter, src string) (*ast.BlockStmt, error) {
	if w := firstWord(src); w != "func" && declKeyword(w) || w == "package" {
		return nil, nil
	}
	mode := parseMode
	if !mayDeclare(src) {
		// Only declarations and labels give DeclarationErrors something to
		// report; without them its resolution only fills ast.Object
		// fields, which yaegi does not read. (A fifth of the parse.)
		mode = parser.ParseComments | parser.SkipObjectResolution
	}
	f, err := parse(yi, stmtHead+src+"\n}", mode)
	if err != nil {
		return nil, err
	}
	return f.Decls[0].(*ast.FuncDecl).Body, nil
}

// parse parses src into yi's FileSet; a file that does not parse is
// removed from it again (its error carries the positions as text).
func parse(yi *interp.Interpreter, src string, mode parser.Mode) (*ast.File, error) {
	fs := yi.FileSet()
	base := fs.Base()
	f, err := parser.ParseFile(fs, interp.DefaultSourceName, src, mode)
	if err != nil {
		if file := fs.File(token.Pos(base)); file != nil {
			fs.RemoveFile(file)
		}
		return nil, err
	}
	return f, nil
}

// declWords are what a statement that declares a name or uses a label
// has in its text: `:=`, a label's colon, var, const, type, a func
// literal's parameters and results, and the branches that name labels.
var declWords = []string{":", "var", "const", "type", "func", "goto", "break", "continue", "import"}

// mayDeclare reports whether src may hold such a statement (generously:
// the words inside names and strings count too).
func mayDeclare(src string) bool {
	for _, w := range declWords {
		if strings.Contains(src, w) {
			return true
		}
	}
	return false
}

// ParseDecls parses src as Eval parses a cell that starts with a
// declaration. A nil file with no error: src has a `yaegi:tags` comment,
// which Eval's parse of a file also reads (into the build tags for later
// imports), or does not start with a declaration's keyword (Eval would
// parse it as statements): give src to Eval as text.
func ParseDecls(yi *interp.Interpreter, src string) (*ast.File, error) {
	if !declKeyword(firstWord(src)) || strings.Contains(src, "yaegi:tags") {
		return nil, nil
	}
	return parse(yi, declHead+src, parseMode)
}

// Offset is the byte offset in src, as given to ParseStmts, of p, a
// position of the tree it returned.
func Offset(yi *interp.Interpreter, p token.Pos) int {
	return yi.FileSet().File(p).Offset(p) - len(stmtHead)
}

// StmtText is statements src as text for Eval, which would parse a text
// that starts with func (a function literal called) as a file once
// `package main;` is put before it fails: as a file declaring func main,
// the statements, which Eval then runs, and again at every later Eval (a
// panic in them made every later cell fail with it). An empty statement
// first keeps them statements, on the first line, which is yaegi's.
func StmtText(src string) string { return ";" + src }

// declKeyword: the first tokens by which Eval parses a cell as a file
// (interp.parse; package too, without the clause it adds).
func declKeyword(w string) bool {
	switch w {
	case "const", "func", "import", "type", "var":
		return true
	}
	return false
}

// firstWord is the identifier or keyword src starts with, after blanks
// and comments ("" if it starts with another token): Eval's firstToken
// without a scanner (which would add a file to the interpreter's FileSet).
func firstWord(src string) string {
	for {
		src = strings.TrimLeft(src, " \t\r\n")
		switch {
		case strings.HasPrefix(src, "//"):
			i := strings.IndexByte(src, '\n')
			if i < 0 {
				return ""
			}
			src = src[i:]
			continue
		case strings.HasPrefix(src, "/*"):
			i := strings.Index(src[2:], "*/")
			if i < 0 {
				return ""
			}
			src = src[2+i+2:]
			continue
		}
		break
	}
	end := 0
	for end < len(src) && (src[end] == '_' || src[end] >= 'a' && src[end] <= 'z' || src[end] >= 'A' && src[end] <= 'Z' || end > 0 && src[end] >= '0' && src[end] <= '9' || src[end] >= 0x80) {
		end++
	}
	return src[:end]
}

// ForgetTree removes the file of n, a tree of ParseStmts or ParseDecls,
// from yi's FileSet, which otherwise keeps every file parsed into it for
// the interpreter's life (a few hundred bytes a cell, and a longer search
// for the next file added). Positions in n print as "-" from then on: only
// for a tree yaegi keeps nothing of once it ran.
func ForgetTree(yi *interp.Interpreter, n ast.Node) {
	fs := yi.FileSet()
	if f := fs.File(n.Pos()); f != nil {
		fs.RemoveFile(f)
	}
}
