package engine

import (
	"github.com/casegraph/casegraph/engine/cmmn"
)

// Identifier is a business identifier of a case: a case file property
// flagged isBusinessIdentifier, with its value.
type Identifier struct {
	Name, Value string
}

// BusinessIdentifiers returns the case's business identifiers (§1.13): for
// every case file item whose definition flags properties as business
// identifiers, the values those properties have, rendered as the text of
// their JSON scalar. Unset properties are skipped; an item in an array
// gives one identifier per element.
func BusinessIdentifiers(def *cmmn.Case, c *Case) []Identifier {
	if def == nil || c == nil {
		return nil
	}
	var out []Identifier
	for _, f := range def.CaseFileItems() {
		d := f.Definition()
		if d == nil {
			continue
		}
		props := d.BusinessIdentifiers()
		if len(props) == 0 {
			continue
		}
		for _, v := range instances(c.File, f) {
			m, ok := v.(map[string]any)
			if !ok {
				continue
			}
			for _, p := range props {
				if x, ok := m[p.Name()]; ok && x != nil {
					out = append(out, Identifier{Name: p.Name(), Value: renderScalar(x)})
				}
			}
		}
	}
	return out
}

// instances returns the values of every instance of item f in file, through
// every element of the arrays on the way.
func instances(file map[string]any, f *cmmn.CaseFileItem) []any {
	var chain []*cmmn.CaseFileItem
	for x := f; x != nil; x = x.Parent() {
		chain = append([]*cmmn.CaseFileItem{x}, chain...)
	}
	level := []any{file}
	for _, def := range chain {
		var next []any
		for _, holder := range level {
			m, ok := holder.(map[string]any)
			if !ok {
				continue
			}
			v := m[def.Name()]
			if list, isList := v.([]any); isList && def.IsArray() {
				for _, e := range list {
					if e != nil {
						next = append(next, e)
					}
				}
			} else if v != nil {
				next = append(next, v)
			}
		}
		level = next
	}
	return level
}
