package lower

import (
	"go/ast"
	"reflect"
	"strconv"
	"strings"
)

// jsonUnexported tags the unexported fields of a struct type `json:"-"`:
// yaegi v0.16.1 builds the type with every field exported (`secret`
// becomes `Xsecret`), so encoding/json wrote and read them
// (`{"name":"ann","Xsecret":"x"}`), where Go skips them. An embedded field
// keeps its tag: Go promotes the exported fields of an unexported embedded
// struct.
func (r *rewriter) jsonUnexported(st *ast.StructType) {
	for _, f := range st.Fields.List {
		if len(f.Names) == 0 {
			continue
		}
		exported := false
		for _, n := range f.Names {
			exported = exported || ast.IsExported(n.Name) || n.Name == "_"
		}
		if exported {
			continue
		}
		if f.Tag == nil {
			r.insert(r.off(f.Type.End()), " `json:\"-\"`")
			continue
		}
		old, err := strconv.Unquote(f.Tag.Value)
		if err != nil {
			continue
		}
		if v, ok := reflect.StructTag(old).Lookup("json"); ok && v == "-" {
			continue
		}
		r.replaceNode(f.Tag, strconv.Quote(strings.TrimSpace(withoutTagKey(old, "json")+` json:"-"`)))
	}
}

// withoutTagKey is tag without its key:"value" pair for key.
func withoutTagKey(tag, key string) string {
	var kept []string
	for tag != "" {
		tag = strings.TrimLeft(tag, " ")
		i := strings.Index(tag, ":\"")
		if i <= 0 {
			break
		}
		name := tag[:i]
		rest := tag[i+1:]
		j := 1
		for j < len(rest) && rest[j] != '"' {
			if rest[j] == '\\' {
				j++
			}
			j++
		}
		if j >= len(rest) {
			break
		}
		if name != key {
			kept = append(kept, name+":"+rest[:j+1])
		}
		tag = rest[j+1:]
	}
	return strings.Join(kept, " ")
}
