package cmmn

import (
	"bytes"
	"encoding/xml"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// seedModels adds every CMMN model in the repository's testdata as a seed:
// the parser's own cases, the engine's and the end-to-end cases.
func seedModels(f *testing.F) {
	var files []string
	for _, dir := range []string{testdata, "../testdata", "../../testdata/cases"} {
		found, err := filepath.Glob(filepath.Join(dir, "*.xml"))
		if err != nil || len(found) == 0 {
			f.Fatalf("no seed models in %s: %v", dir, err)
		}
		files = append(files, found...)
	}
	for _, path := range files {
		data, err := os.ReadFile(path)
		if err != nil {
			f.Fatal(err)
		}
		f.Add(data)
	}
	f.Add([]byte(`<!DOCTYPE d [<!ENTITY a "b">]><definitions/>`))
	f.Add([]byte(`<definitions xmlns="http://www.omg.org/spec/CMMN/20151109/MODEL"><case id="c" name="c"><casePlanModel id="p" name="p"/></case></definitions>`))
	f.Add([]byte(`<?xml version="1.0" encoding="ISO-8859-1"?><definitions xmlns="http://www.omg.org/spec/CMMN/20151109/MODEL" xmlns:c="org.cafienne" c:x="&#xE9;"/>`))
}

// FuzzParse checks that no document makes Parse panic, that its errors are
// *ValidationError, and that a document Parse accepts always yields the
// same graph.
func FuzzParse(f *testing.F) {
	seedModels(f)
	f.Fuzz(func(t *testing.T, data []byte) {
		d, err := Parse(data)
		if err != nil {
			checkValidationError(t, err)
			return
		}
		again, err := Parse(data)
		if err != nil {
			t.Fatalf("second Parse failed: %v", err)
		}
		if a, b := dump(d), dump(again); a != b {
			t.Fatalf("two parses differ:\n%s", diffLines(a, b))
		}
	})
}

// FuzzXMLRoundTrip reads a document into its element tree, renders the
// tree as XML again and reads that: the tree must come back the same, and
// when the original is a valid model the rendering must parse to the same
// graph. This pins the XML layer (namespaces, escaping, character data)
// that every definition goes through.
func FuzzXMLRoundTrip(f *testing.F) {
	seedModels(f)
	f.Fuzz(func(t *testing.T, data []byte) {
		root, err := readXML(data)
		if err != nil {
			return
		}
		rendered := renderXML(root)
		back, err := readXML(rendered)
		if err != nil {
			t.Fatalf("the rendering does not read: %v\n%s", err, rendered)
		}
		if a, b := treeString(root), treeString(back); a != b {
			t.Fatalf("the tree changed in a round trip:\n%s", diffLines(a, b))
		}
		d, err := Parse(data)
		if err != nil {
			return
		}
		d2, err := Parse(rendered)
		if err != nil {
			t.Fatalf("the rendering of a valid model is invalid: %v\n%s", err, rendered)
		}
		if a, b := dump(d), dump(d2); a != b {
			t.Fatalf("the graph changed in a round trip:\n%s", diffLines(a, b))
		}
	})
}

func checkValidationError(t *testing.T, err error) {
	t.Helper()
	ve, ok := err.(*ValidationError)
	if !ok {
		t.Fatalf("error %T, want *ValidationError", err)
	}
	if len(ve.Problems) == 0 || ve.Error() == "" {
		t.Fatalf("a ValidationError without problems: %#v", ve)
	}
	for _, p := range ve.Problems {
		if strings.TrimSpace(p) == "" {
			t.Fatalf("an empty problem in %q", ve.Problems)
		}
	}
}

const xmlNamespace = "http://www.w3.org/XML/1998/namespace"

// renderXML writes a tree as XML, declaring each element's namespace as
// its default and each attribute's namespace under a fresh prefix, so the
// rendering does not depend on the prefixes of the original.
func renderXML(n *Node) []byte {
	var b bytes.Buffer
	renderNode(&b, n)
	return b.Bytes()
}

func renderNode(b *bytes.Buffer, n *Node) {
	fmt.Fprintf(b, "<%s xmlns=\"%s\"", n.name, escape(n.space))
	prefix := 0
	for _, a := range n.attrs {
		switch {
		case a.Name.Space == "xmlns" || (a.Name.Space == "" && a.Name.Local == "xmlns"):
			continue // declarations are the renderer's own
		case a.Name.Space == "":
			fmt.Fprintf(b, " %s=\"%s\"", a.Name.Local, escape(a.Value))
		case a.Name.Space == xmlNamespace:
			fmt.Fprintf(b, " xml:%s=\"%s\"", a.Name.Local, escape(a.Value))
		default:
			fmt.Fprintf(b, " xmlns:p%d=\"%s\" p%d:%s=\"%s\"", prefix, escape(a.Name.Space), prefix, a.Name.Local, escape(a.Value))
			prefix++
		}
	}
	b.WriteString(">")
	b.WriteString(escape(n.text))
	for _, c := range n.children {
		renderNode(b, c)
	}
	fmt.Fprintf(b, "</%s>", n.name)
}

func escape(s string) string {
	var b strings.Builder
	_ = xml.EscapeText(&b, []byte(s))
	return b.String()
}

// treeString lists a tree's elements, attributes (without namespace
// declarations) and text, for comparing two reads.
func treeString(n *Node) string {
	var b strings.Builder
	var walk func(n *Node, depth int)
	walk = func(n *Node, depth int) {
		fmt.Fprintf(&b, "%s{%s}%s\n", strings.Repeat("  ", depth), n.space, n.name)
		for _, a := range n.attrs {
			if a.Name.Space == "xmlns" || (a.Name.Space == "" && a.Name.Local == "xmlns") {
				continue
			}
			fmt.Fprintf(&b, "%s @{%s}%s=%q\n", strings.Repeat("  ", depth), a.Name.Space, a.Name.Local, a.Value)
		}
		fmt.Fprintf(&b, "%s text %q\n", strings.Repeat("  ", depth), n.text)
		for _, c := range n.children {
			walk(c, depth+1)
		}
	}
	walk(n, 0)
	return b.String()
}
