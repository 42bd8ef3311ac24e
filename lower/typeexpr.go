package lower

import (
	"fmt"
	"go/types"
	"strconv"
	"strings"
)

// typeText writes t as Go source valid in the lowered cell: type parameters
// replaced by their arguments, instances of generic types by the name of
// their monomorphic copy, and types of packages the cell has not imported
// qualified by an import the lowering adds.
func (ctx *lowerCtx) typeText(t types.Type, subst map[*types.TypeParam]types.Type) string {
	var b strings.Builder
	ctx.writeType(&b, t, subst)
	return b.String()
}

func (ctx *lowerCtx) writeType(b *strings.Builder, t types.Type, subst map[*types.TypeParam]types.Type) {
	switch t := types.Unalias(t).(type) {
	case *types.Basic:
		if t.Info()&types.IsUntyped != 0 {
			t = types.Default(t).(*types.Basic)
		}
		if t.Kind() == types.UnsafePointer {
			b.WriteString(ctx.qualify("unsafe") + ".Pointer")
			return
		}
		b.WriteString(t.Name())
	case *types.TypeParam:
		if a, ok := subst[t]; ok {
			ctx.writeType(b, a, nil)
			return
		}
		ctx.fail(fmt.Errorf("type parameter %s outside its generic declaration", t))
		b.WriteString(t.Obj().Name())
	case *types.Named:
		obj := t.Obj()
		if name, ok := ctx.redefinedName(obj); ok {
			b.WriteString(name)
			return
		}
		if t.TypeArgs().Len() > 0 {
			args := make([]types.Type, t.TypeArgs().Len())
			for i := range args {
				args[i] = substType(t.TypeArgs().At(i), subst)
			}
			b.WriteString(ctx.instance(t.Origin().Obj(), args))
			return
		}
		switch {
		case obj.Pkg() == nil || ctx.chk.local(obj.Pkg()):
			b.WriteString(obj.Name())
		default:
			b.WriteString(ctx.qualify(obj.Pkg().Path()) + "." + obj.Name())
		}
	case *types.Pointer:
		b.WriteString("*")
		ctx.writeType(b, t.Elem(), subst)
	case *types.Slice:
		b.WriteString("[]")
		ctx.writeType(b, t.Elem(), subst)
	case *types.Array:
		fmt.Fprintf(b, "[%d]", t.Len())
		ctx.writeType(b, t.Elem(), subst)
	case *types.Map:
		b.WriteString("map[")
		ctx.writeType(b, t.Key(), subst)
		b.WriteString("]")
		ctx.writeType(b, t.Elem(), subst)
	case *types.Chan:
		switch t.Dir() {
		case types.SendRecv:
			b.WriteString("chan ")
			if c, ok := t.Elem().(*types.Chan); ok && c.Dir() == types.RecvOnly {
				b.WriteString("(")
				ctx.writeType(b, t.Elem(), subst)
				b.WriteString(")")
				return
			}
		case types.SendOnly:
			b.WriteString("chan<- ")
		case types.RecvOnly:
			b.WriteString("<-chan ")
		}
		ctx.writeType(b, t.Elem(), subst)
	case *types.Signature:
		b.WriteString("func")
		ctx.writeSig(b, t, subst)
	case *types.Struct:
		b.WriteString("struct{")
		for i := range t.NumFields() {
			f := t.Field(i)
			if i > 0 {
				b.WriteString("; ")
			}
			if !f.Exported() && !ctx.chk.local(f.Pkg()) && f.Pkg() != nil {
				ctx.fail(fmt.Errorf("struct type with unexported field %s of package %s", f.Name(), f.Pkg().Path()))
			}
			if !f.Embedded() {
				b.WriteString(f.Name() + " ")
			}
			ctx.writeType(b, f.Type(), subst)
			if tag := t.Tag(i); tag != "" {
				b.WriteString(" " + strconv.Quote(tag))
			}
		}
		b.WriteString("}")
	case *types.Interface:
		if t.Empty() {
			b.WriteString("interface{}")
			return
		}
		b.WriteString("interface{")
		n := 0
		for i := range t.NumEmbeddeds() {
			if n > 0 {
				b.WriteString("; ")
			}
			ctx.writeType(b, t.EmbeddedType(i), subst)
			n++
		}
		for i := range t.NumExplicitMethods() {
			if n > 0 {
				b.WriteString("; ")
			}
			m := t.ExplicitMethod(i)
			b.WriteString(m.Name())
			ctx.writeSig(b, m.Type().(*types.Signature), subst)
			n++
		}
		b.WriteString("}")
	case *types.Union:
		for i := range t.Len() {
			if i > 0 {
				b.WriteString(" | ")
			}
			if t.Term(i).Tilde() {
				b.WriteString("~")
			}
			ctx.writeType(b, t.Term(i).Type(), subst)
		}
	default:
		ctx.fail(fmt.Errorf("cannot write type %s", t))
		b.WriteString(t.String())
	}
}

func (ctx *lowerCtx) writeSig(b *strings.Builder, sig *types.Signature, subst map[*types.TypeParam]types.Type) {
	b.WriteString("(")
	for i := range sig.Params().Len() {
		if i > 0 {
			b.WriteString(", ")
		}
		pt := sig.Params().At(i).Type()
		if sig.Variadic() && i == sig.Params().Len()-1 {
			b.WriteString("...")
			if s, ok := pt.(*types.Slice); ok {
				pt = s.Elem()
			}
		}
		ctx.writeType(b, pt, subst)
	}
	b.WriteString(")")
	switch n := sig.Results().Len(); n {
	case 0:
	case 1:
		b.WriteString(" ")
		ctx.writeType(b, sig.Results().At(0).Type(), subst)
	default:
		b.WriteString(" (")
		for i := range n {
			if i > 0 {
				b.WriteString(", ")
			}
			ctx.writeType(b, sig.Results().At(i).Type(), subst)
		}
		b.WriteString(")")
	}
}

// typeExprText is typeText for a type in an operand position: a type that
// starts with an operator gets parentheses, so `T(x)` stays a conversion.
func (ctx *lowerCtx) typeExprText(t types.Type, subst map[*types.TypeParam]types.Type) string {
	s := ctx.typeText(t, subst)
	if strings.HasPrefix(s, "*") || strings.HasPrefix(s, "func") || strings.HasPrefix(s, "<-") || strings.HasPrefix(s, "chan") {
		return "(" + s + ")"
	}
	return s
}

// substType replaces type parameters in t by their arguments.
func substType(t types.Type, subst map[*types.TypeParam]types.Type) types.Type {
	if len(subst) == 0 {
		return t
	}
	switch x := types.Unalias(t).(type) {
	case *types.TypeParam:
		if a, ok := subst[x]; ok {
			return a
		}
	case *types.Pointer:
		return types.NewPointer(substType(x.Elem(), subst))
	case *types.Slice:
		return types.NewSlice(substType(x.Elem(), subst))
	case *types.Array:
		return types.NewArray(substType(x.Elem(), subst), x.Len())
	case *types.Map:
		return types.NewMap(substType(x.Key(), subst), substType(x.Elem(), subst))
	case *types.Chan:
		return types.NewChan(x.Dir(), substType(x.Elem(), subst))
	case *types.Signature:
		return types.NewSignatureType(nil, nil, nil, substTuple(x.Params(), subst), substTuple(x.Results(), subst), x.Variadic())
	case *types.Struct:
		fields := make([]*types.Var, x.NumFields())
		tags := make([]string, x.NumFields())
		for i := range fields {
			f := x.Field(i)
			fields[i] = types.NewField(f.Pos(), f.Pkg(), f.Name(), substType(f.Type(), subst), f.Embedded())
			tags[i] = x.Tag(i)
		}
		return types.NewStruct(fields, tags)
	case *types.Interface:
		if x.NumExplicitMethods() == 0 {
			break
		}
		methods := make([]*types.Func, x.NumExplicitMethods())
		for i := range methods {
			m := x.ExplicitMethod(i)
			methods[i] = types.NewFunc(m.Pos(), m.Pkg(), m.Name(), substType(m.Type(), subst).(*types.Signature))
		}
		embedded := make([]types.Type, x.NumEmbeddeds())
		for i := range embedded {
			embedded[i] = substType(x.EmbeddedType(i), subst)
		}
		return types.NewInterfaceType(methods, embedded).Complete()
	case *types.Named:
		if x.TypeArgs().Len() > 0 {
			args := make([]types.Type, x.TypeArgs().Len())
			for i := range args {
				args[i] = substType(x.TypeArgs().At(i), subst)
			}
			if inst, err := types.Instantiate(nil, x.Origin(), args, false); err == nil {
				return inst
			}
		}
	}
	return t
}

func substTuple(t *types.Tuple, subst map[*types.TypeParam]types.Type) *types.Tuple {
	vars := make([]*types.Var, t.Len())
	for i := range vars {
		v := t.At(i)
		vars[i] = types.NewParam(v.Pos(), v.Pkg(), v.Name(), substType(v.Type(), subst))
	}
	return types.NewTuple(vars...)
}
