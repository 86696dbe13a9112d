package main

import (
	"flag"
	"fmt"
	"io"
	"regexp"
	"runtime/debug"
	"strings"
	"text/tabwriter"
	"time"

	"github.com/casegraph/casegraph/cmd/casegraph/server"
)

// command is one subcommand of casegraph, as the help lists it.
type command struct {
	name, args, summary string
	// flags, when set, is a subcommand whose flags `casegraph help NAME`
	// lists from their definitions.
	flags func(w io.Writer) *flag.FlagSet
}

// commands lists the subcommands in the order the help shows them.
var commands = []command{
	{"serve", "[flags]", "run the server (serve --dev for local development)", serveFlagSet},
	{"migrate", "[flags]", "apply the database migrations and exit", migrateFlagSet},
	{"token", "[-data-dir DIR] [-ttl 24h] USERID", "print a development bearer token for USERID", nil},
	{"validate", "FILE|DIR…", "validate CMMN definition files (directories: every .xml below)", nil},
	{"health", "[-url URL]", "ask a running server for its health; exit 0 when healthy (for container health checks)", nil},
	{"load", "[flags]", "drive a running server with a mixed workload and report throughput and latency per operation", loadUsage},
	{"version", "", "print the module version, VCS revision and build time", nil},
	{"help", "[COMMAND]", "list the commands, or a command's flags and environment variables", nil},
}

func serveFlagSet(w io.Writer) *flag.FlagSet {
	fs, _ := configFlags("serve", w)
	return fs
}

func migrateFlagSet(w io.Writer) *flag.FlagSet {
	fs, _ := configFlags("migrate", w)
	return fs
}

// printUsage lists the subcommands, one line each.
func printUsage(w io.Writer) {
	fmt.Fprint(w, "casegraph runs CaseGraph, a CMMN case-management engine.\n\nUsage:\n  casegraph COMMAND [arguments]\n\nCommands:\n")
	tw := tabwriter.NewWriter(w, 0, 0, 3, ' ', 0)
	for _, c := range commands {
		fmt.Fprintf(tw, "  %s\t%s\n", c.name, c.summary)
	}
	tw.Flush()
	fmt.Fprint(w, "\nRun \"casegraph help COMMAND\" for a command's arguments, flags and environment variables.\n")
}

// help answers `casegraph help [COMMAND]`.
func help(args []string, stdout io.Writer) error {
	if len(args) == 0 {
		printUsage(stdout)
		return nil
	}
	for _, c := range commands {
		if c.name != args[0] {
			continue
		}
		fmt.Fprintf(stdout, "Usage: casegraph %s %s\n\n%s.\n", c.name, c.args, upperFirst(c.summary))
		if c.flags != nil {
			fmt.Fprintln(stdout)
			printFlags(stdout, c.flags(io.Discard))
		}
		return nil
	}
	return fmt.Errorf("unknown command %q; run \"casegraph help\" for the list", args[0])
}

// envInUsage finds the environment variable a flag's usage ends with, by
// the convention every flag follows: "what it does (CASEGRAPH_NAME)".
var envInUsage = regexp.MustCompile(`\s*\(([A-Z][A-Z0-9_]*)\)$`)

// printFlags lists the flags of fs with their environment variables and
// defaults, built from the flag definitions so that a new flag appears
// without touching the help.
func printFlags(w io.Writer, fs *flag.FlagSet) {
	fmt.Fprintln(w, "Flags (each also read from its environment variable; a flag wins over the variable):")
	tw := tabwriter.NewWriter(w, 0, 0, 3, ' ', 0)
	fmt.Fprintln(tw, "  FLAG\tVARIABLE\tDEFAULT\tMEANING")
	fs.VisitAll(func(f *flag.Flag) {
		usage, variable := f.Usage, "-"
		if m := envInUsage.FindStringSubmatch(usage); m != nil {
			variable, usage = m[1], usage[:len(usage)-len(m[0])]
		}
		def := f.DefValue
		if def == "" {
			def = `""`
		}
		fmt.Fprintf(tw, "  -%s\t%s\t%s\t%s\n", f.Name, variable, def, usage)
	})
	tw.Flush()
}

func upperFirst(s string) string {
	if s == "" {
		return s
	}
	return strings.ToUpper(s[:1]) + s[1:]
}

// buildInfo describes this binary from what the Go toolchain recorded in it
// (module version, VCS revision and commit time), overridden by the
// -ldflags values when a release build sets them.
func buildInfo() server.VersionInfo {
	v := server.VersionInfo{Version: version, GitCommit: commit, BuiltAt: builtAt}
	bi, ok := debug.ReadBuildInfo()
	if !ok {
		return v
	}
	if v.Version == "dev" && bi.Main.Version != "" && bi.Main.Version != "(devel)" {
		v.Version = bi.Main.Version
	}
	var revision, vcsTime string
	modified := false
	for _, s := range bi.Settings {
		switch s.Key {
		case "vcs.revision":
			revision = s.Value
		case "vcs.time":
			vcsTime = s.Value
		case "vcs.modified":
			modified = s.Value == "true"
		}
	}
	if v.GitCommit == "" && revision != "" {
		v.GitCommit = revision
		if modified {
			v.GitCommit += "+modified"
		}
	}
	// The toolchain records when the commit was made, not when the binary
	// was built; it is the best time a plain `go build` offers.
	if v.BuiltAt == "" {
		v.BuiltAt = vcsTime
	}
	return v
}

// printVersion answers `casegraph version`.
func printVersion(w io.Writer) {
	v := buildInfo()
	orUnknown := func(s string) string {
		if s == "" {
			return "unknown"
		}
		return s
	}
	goVersion, module := "unknown", "github.com/casegraph/casegraph"
	if bi, ok := debug.ReadBuildInfo(); ok {
		goVersion = bi.GoVersion
		if bi.Main.Path != "" {
			module = bi.Main.Path
		}
	}
	built := orUnknown(v.BuiltAt)
	if t, err := time.Parse(time.RFC3339, v.BuiltAt); err == nil {
		built = t.UTC().Format(time.RFC3339)
	}
	fmt.Fprintf(w, "casegraph %s\nmodule:   %s\nrevision: %s\nbuilt:    %s\ngo:       %s\n",
		orUnknown(v.Version), module, orUnknown(v.GitCommit), built, goVersion)
}
