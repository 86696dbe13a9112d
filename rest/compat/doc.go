// Package compat is the REST compatibility suite: table-driven tests that
// hold every route the REST adapter serves to the reference engine's
// contract (reference-engine.md §1 and its addendum reference-rules.md),
// caller by caller, on both databases. It has no code of its own; the
// tests run a whole server (servertest) with the models in testdata/.
//
// A row names a route, a caller, a body, and what the reference engine
// answers: the status, the exact plain-text message of an error, or the
// JSON shape (keys and their JSON types) of a success, and the
// *-Last-Modified header. A row marked pending describes reference
// behaviour CaseGraph does not have yet; it is skipped with that reason.
package compat
