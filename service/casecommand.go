package service

import (
	"context"

	"github.com/casegraph/casegraph/auth"
	"github.com/casegraph/casegraph/engine"
)

// MakeTransition applies a transition (a name such as "complete" or
// "manualStart", any case) to the plan items with that id or name. Any team
// member may; the engine checks the roles a transition needs. NotModified
// when nothing changed.
func (s *Service) MakeTransition(ctx context.Context, who auth.Identity, caseID, planItem, transition string) (LastModified, error) {
	const op = "service.MakeTransition"
	t, ok := engine.ParseTransition(transition)
	if !ok {
		return LastModified{}, E(op, Invalid, "Transition null is not valid")
	}
	return s.caseCommand(ctx, op, who, caseID, engine.MakeTransition{PlanItem: planItem, Transition: t})
}

// ChangeCaseFile creates, updates, replaces or deletes a case file item.
// Any team member may.
func (s *Service) ChangeCaseFile(ctx context.Context, who auth.Identity, id string, op CaseFileOp, path string, value any) (LastModified, error) {
	return s.caseCommand(ctx, "service.ChangeCaseFile", who, id, engine.ChangeCaseFile{Op: op, Path: path, Value: value})
}

// CaseFileOp is a case file operation: create, update, replace or delete.
type CaseFileOp = engine.CaseFileOp

// Case file operations.
const (
	FileCreate  = engine.FileCreate
	FileUpdate  = engine.FileUpdate
	FileReplace = engine.FileReplace
	FileDelete  = engine.FileDelete
)
