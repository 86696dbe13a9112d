// Package cmmn reads CMMN 1.1 case definitions, with the reference engine's
// cafienne extensions, into an immutable graph the engine runs cases on.
//
// [Parse] reads a <definitions> document, resolves every reference (plan
// items to their definitions, criteria to sentries, on-parts to the plan
// items and case file items they listen to, parameters to case file items,
// case tasks to cases, process tasks to processes, roles) into pointers, and
// validates the result: undefined references, duplicate ids and role names,
// missing names, expressions that do not compile, unsupported constructs,
// stages that contain themselves and cases that start themselves without
// end. All problems are collected into one [*ValidationError].
//
// The document is read defensively: it may come from any tenant. Document
// type declarations are refused outright (so entity expansion and external
// entities cannot happen), and size, nesting depth and element count are
// bounded (see [MaxDocumentSize], [MaxDepth], [MaxElements]).
//
// The graph is shaped for the runtime: every plan item knows its parent
// stage, its effective item-control rules and its criteria; every sentry
// knows its on-parts, and every plan item and case file item knows the
// on-parts listening to it ([PlanItem.Listeners], [CaseFileItem.Listeners]);
// case file items know their path and children. Expressions are compiled
// with package expr when the definition is parsed.
package cmmn
