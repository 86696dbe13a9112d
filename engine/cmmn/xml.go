package cmmn

import (
	"bytes"
	"encoding/xml"
	"errors"
	"fmt"
	"io"
	"strings"
	"unicode/utf8"
)

// Limits on a definitions document. They are far above what real models
// need (the largest reference model is 300 KB, a few thousand elements,
// 15 levels deep) and keep a hostile document from costing more than a few
// milliseconds.
const (
	// MaxDocumentSize is the largest document Parse accepts, in bytes.
	MaxDocumentSize = 10 << 20
	// MaxDepth is the deepest element nesting Parse accepts.
	MaxDepth = 200
	// MaxElements is the largest number of elements Parse accepts.
	MaxElements = 200_000
	// maxAttributes bounds the attributes of one element.
	maxAttributes = 256
)

// Namespaces of definitions documents.
const (
	// NamespaceCMMN is the CMMN 1.1 model namespace.
	NamespaceCMMN = "http://www.omg.org/spec/CMMN/20151109/MODEL"
	// NamespaceCafienne is the namespace of the reference engine's extensions.
	NamespaceCafienne = "org.cafienne"
)

// Node is an XML element kept as it was written, for the parts of a
// definition the engine hands to plugins without interpreting them, such as
// a process task's implementation (an HTTP call, a calculation, a mail).
type Node struct {
	space, name string
	attrs       []xml.Attr
	text        string
	children    []*Node

	textBuf []byte // collects character data while reading
}

// Name returns the element's local name.
func (n *Node) Name() string { return n.name }

// Namespace returns the element's namespace URI.
func (n *Node) Namespace() string { return n.space }

// Attr returns the value of the attribute with the given local name, or ""
// when absent. Namespace declarations are not attributes here.
func (n *Node) Attr(name string) string {
	v, _ := n.lookupAttr(name)
	return v
}

func (n *Node) lookupAttr(name string) (string, bool) {
	for _, a := range n.attrs {
		if a.Name.Local == name && a.Name.Space != "xmlns" {
			return a.Value, true
		}
	}
	return "", false
}

// Attrs returns the element's attributes as local name to value, without
// namespace declarations.
func (n *Node) Attrs() map[string]string {
	m := make(map[string]string, len(n.attrs))
	for _, a := range n.attrs {
		if a.Name.Space != "xmlns" && a.Name.Local != "xmlns" {
			m[a.Name.Local] = a.Value
		}
	}
	return m
}

// Text returns the character data directly inside the element, untrimmed.
func (n *Node) Text() string { return n.text }

// Children returns the child elements in document order.
func (n *Node) Children() []*Node { return n.children[:len(n.children):len(n.children)] }

// Child returns the first child element with the given local name, or nil.
func (n *Node) Child(name string) *Node {
	for _, c := range n.children {
		if c.name == name {
			return c
		}
	}
	return nil
}

// ChildText returns the trimmed text of the first child with the given
// local name, or "" when there is none.
func (n *Node) ChildText(name string) string {
	if c := n.Child(name); c != nil {
		return strings.TrimSpace(c.text)
	}
	return ""
}

// readXML reads a document into a tree, enforcing the limits above and
// refusing document type declarations: a DTD can declare entities that
// expand exponentially ("billion laughs") or read external files, and no
// CMMN model needs one.
func readXML(data []byte) (*Node, error) {
	if len(data) > MaxDocumentSize {
		return nil, fmt.Errorf("the document is %d bytes, larger than the limit of %d bytes", len(data), MaxDocumentSize)
	}
	data = bytes.TrimPrefix(data, []byte("\xef\xbb\xbf"))
	if len(bytes.TrimSpace(data)) == 0 {
		return nil, errors.New("the document is empty")
	}
	dec := xml.NewDecoder(bytes.NewReader(data))
	dec.Strict = true
	dec.CharsetReader = charsetReader
	var (
		root     *Node
		stack    []*Node
		elements int
	)
	for {
		tok, err := dec.Token()
		if err == io.EOF {
			break
		}
		if err != nil {
			return nil, notWellFormed(err)
		}
		switch t := tok.(type) {
		case xml.StartElement:
			elements++
			if elements > MaxElements {
				return nil, fmt.Errorf("the document has more than %d elements", MaxElements)
			}
			if len(stack) >= MaxDepth {
				return nil, fmt.Errorf("elements are nested more than %d levels deep (at line %d)", MaxDepth, line(dec))
			}
			if len(t.Attr) > maxAttributes {
				return nil, fmt.Errorf("element <%s> at line %d has more than %d attributes", t.Name.Local, line(dec), maxAttributes)
			}
			n := &Node{space: t.Name.Space, name: t.Name.Local, attrs: t.Attr}
			if len(stack) == 0 {
				if root != nil {
					return nil, fmt.Errorf("the document has more than one root element (a second <%s> at line %d)", t.Name.Local, line(dec))
				}
				root = n
			} else {
				parent := stack[len(stack)-1]
				parent.children = append(parent.children, n)
			}
			stack = append(stack, n)
		case xml.EndElement:
			n := stack[len(stack)-1]
			n.text = string(n.textBuf)
			n.textBuf = nil
			stack = stack[:len(stack)-1]
		case xml.CharData:
			if len(stack) > 0 {
				n := stack[len(stack)-1]
				n.textBuf = append(n.textBuf, t...)
			}
		case xml.Directive:
			d := strings.TrimSpace(string(t))
			if strings.HasPrefix(strings.ToUpper(d), "DOCTYPE") || strings.Contains(strings.ToUpper(d), "ENTITY") {
				return nil, fmt.Errorf("the document contains a document type declaration (<!DOCTYPE ...>) at line %d; DTDs and entity declarations are not allowed in definitions", line(dec))
			}
			return nil, fmt.Errorf("the document contains an unsupported declaration <!%s> at line %d", firstWord(d), line(dec))
		}
	}
	if root == nil {
		return nil, errors.New("the document has no root element")
	}
	return root, nil
}

func line(dec *xml.Decoder) int {
	l, _ := dec.InputPos()
	return l
}

func firstWord(s string) string {
	if i := strings.IndexAny(s, " \t\r\n"); i >= 0 {
		s = s[:i]
	}
	if len(s) > 20 {
		s = s[:20]
	}
	return s
}

func notWellFormed(err error) error {
	var se *xml.SyntaxError
	if errors.As(err, &se) {
		return fmt.Errorf("the document is not well-formed XML: line %d: %s", se.Line, se.Msg)
	}
	return fmt.Errorf("the document is not well-formed XML: %v", err)
}

// charsetReader accepts the single-byte encodings older modelling tools
// declare besides UTF-8; everything else is refused by name.
func charsetReader(label string, input io.Reader) (io.Reader, error) {
	switch strings.ToLower(label) {
	case "utf-8", "utf8":
		return input, nil
	case "us-ascii", "ascii", "iso-8859-1", "latin1", "iso_8859-1", "l1":
		b, err := io.ReadAll(io.LimitReader(input, MaxDocumentSize))
		if err != nil {
			return nil, err
		}
		out := make([]byte, 0, len(b)+len(b)/8)
		for _, c := range b {
			out = utf8.AppendRune(out, rune(c))
		}
		return bytes.NewReader(out), nil
	}
	return nil, fmt.Errorf("encoding %q is not supported; use UTF-8", label)
}
