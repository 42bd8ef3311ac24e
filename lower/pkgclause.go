package lower

// PackageName returns the package clause of the uploaded package at path,
// or "" when path is standard or not an upload that type-checks: for
// pkgname.Of, since an upload's directory need not be named after it.
func (s *Session) PackageName(path string) string {
	if isStd(path) {
		return "" // named by the rule, as yaegi's tables name them
	}
	pkg, err := s.src.Import(path)
	if err != nil || pkg == nil {
		return ""
	}
	return pkg.Name()
}
