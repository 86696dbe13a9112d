// Package proof holds the proof tests of CaseGraph's promises under load
// and faults: several server processes on one database behave as one, a
// killed server loses nothing it acknowledged, a timer that came due while
// no server ran fires once. They build the real binary and run it as
// separate processes; this package has no code of its own.
package proof
