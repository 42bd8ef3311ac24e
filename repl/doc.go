// Package repl owns sessions and the REPL: the Manager (create, attach,
// detach, evict, restore, kill), the Session (owner, uuid, journal,
// evaluator) and the interactive and scripted loops over plain readers and
// writers. It knows no SSH.
package repl
