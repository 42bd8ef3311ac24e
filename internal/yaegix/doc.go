// Package yaegix holds what replhost knows of yaegi beyond its documented
// API: the texts of its errors, panics and stderr lines the host reads, the
// unexported fields it drives, the conventions of its symbol tables and
// the behaviours the front end works around. Everything here was written
// against Version, and each piece is pinned by a test that runs the real
// interpreter, so that an upgrade of yaegi fails here first, in one place.
package yaegix

// Version is the yaegi release this package was written against (go.mod's).
const Version = "v0.16.1"
