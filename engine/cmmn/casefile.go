package cmmn

import "strings"

// Multiplicity says how many values a case file item holds.
type Multiplicity string

// Multiplicities of CMMN 1.1.
const (
	ExactlyOne  Multiplicity = "ExactlyOne"
	ZeroOrOne   Multiplicity = "ZeroOrOne"
	ZeroOrMore  Multiplicity = "ZeroOrMore"
	OneOrMore   Multiplicity = "OneOrMore"
	Unspecified Multiplicity = "Unspecified"
	Unknown     Multiplicity = "Unknown"
)

// IsArray reports whether the item holds a list of values.
func (m Multiplicity) IsArray() bool { return m == ZeroOrMore || m == OneOrMore }

func parseMultiplicity(s string) (Multiplicity, bool) {
	switch m := Multiplicity(s); m {
	case ExactlyOne, ZeroOrOne, ZeroOrMore, OneOrMore, Unspecified, Unknown:
		return m, true
	case "":
		return Unspecified, true
	}
	return "", false
}

// PropertyType is the type of a case file item property, the last segment
// of a CMMN PropertyType URI.
type PropertyType string

// Property types of CMMN 1.1.
const (
	PropertyString      PropertyType = "string"
	PropertyBoolean     PropertyType = "boolean"
	PropertyInteger     PropertyType = "integer"
	PropertyFloat       PropertyType = "float"
	PropertyDouble      PropertyType = "double"
	PropertyDecimal     PropertyType = "decimal"
	PropertyDate        PropertyType = "date"
	PropertyTime        PropertyType = "time"
	PropertyDateTime    PropertyType = "dateTime"
	PropertyDuration    PropertyType = "duration"
	PropertyQName       PropertyType = "QName"
	PropertyAnyURI      PropertyType = "anyURI"
	PropertyUnspecified PropertyType = "Unspecified"
)

// propertyTypePrefix is the URI prefix of CMMN property types.
const propertyTypePrefix = "http://www.omg.org/spec/CMMN/PropertyType/"

// PropertyTypeURI returns the full CMMN URI of a property type, as the
// reference engine names it in messages.
func PropertyTypeURI(t PropertyType) string { return propertyTypePrefix + string(t) }

func parsePropertyType(uri string) (PropertyType, bool) {
	if uri == "" {
		return PropertyUnspecified, true
	}
	switch t := PropertyType(strings.TrimPrefix(uri, propertyTypePrefix)); t {
	case PropertyString, PropertyBoolean, PropertyInteger, PropertyFloat, PropertyDouble, PropertyDecimal, PropertyDate,
		PropertyTime, PropertyDateTime, PropertyDuration, PropertyQName, PropertyAnyURI, PropertyUnspecified:
		return t, true
	}
	return "", false
}

// CaseFileItemDefinition describes the structure of case file items: its
// typed properties.
type CaseFileItemDefinition struct {
	element
	definitionType string
	properties     []*Property
}

// DefinitionType returns the CMMN DefinitionType URI, such as
// http://www.omg.org/spec/CMMN/DefinitionType/Unspecified.
func (d *CaseFileItemDefinition) DefinitionType() string { return d.definitionType }

// Properties returns the properties in document order.
func (d *CaseFileItemDefinition) Properties() []*Property { return clip(d.properties) }

// Property returns the property with the given name, or nil.
func (d *CaseFileItemDefinition) Property(name string) *Property { return byName(d.properties, name) }

// BusinessIdentifiers returns the properties flagged isBusinessIdentifier,
// which the engine indexes for filtering cases.
func (d *CaseFileItemDefinition) BusinessIdentifiers() []*Property {
	var ids []*Property
	for _, p := range d.properties {
		if p.businessIdentifier {
			ids = append(ids, p)
		}
	}
	return ids
}

// Property is a typed property of a case file item definition.
type Property struct {
	element
	typ                PropertyType
	businessIdentifier bool
}

// Type returns the property's type.
func (p *Property) Type() PropertyType { return p.typ }

// IsBusinessIdentifier reports the cafienne isBusinessIdentifier flag.
func (p *Property) IsBusinessIdentifier() bool { return p.businessIdentifier }

// CaseFileItem is an item of the case file model. Items form a tree; an
// item's path is the names from the root, joined by "/".
type CaseFileItem struct {
	element
	c             *Case
	multiplicity  Multiplicity
	definitionRef string
	definition    *CaseFileItemDefinition
	parent        *CaseFileItem
	children      []*CaseFileItem
	path          string
	listeners     []*CaseFileItemOnPart
}

// Case returns the case the item belongs to.
func (f *CaseFileItem) Case() *Case { return f.c }

// Multiplicity returns how many values the item holds.
func (f *CaseFileItem) Multiplicity() Multiplicity { return f.multiplicity }

// IsArray reports whether the item holds a list.
func (f *CaseFileItem) IsArray() bool { return f.multiplicity.IsArray() }

// Definition returns the item's structure definition.
func (f *CaseFileItem) Definition() *CaseFileItemDefinition { return f.definition }

// Parent returns the enclosing item, or nil for a top-level item.
func (f *CaseFileItem) Parent() *CaseFileItem { return f.parent }

// Children returns the child items.
func (f *CaseFileItem) Children() []*CaseFileItem { return clip(f.children) }

// Child returns the child item with the given name, or nil.
func (f *CaseFileItem) Child(name string) *CaseFileItem { return byName(f.children, name) }

// Path returns the item names from the top of the case file, such as
// "Root/Child".
func (f *CaseFileItem) Path() string { return f.path }

// Listeners returns the case file item on-parts of sentries that listen to
// this item, so the engine can notify exactly those sentries when the item
// changes.
func (f *CaseFileItem) Listeners() []*CaseFileItemOnPart { return clip(f.listeners) }
