package service

import (
	"context"
	"encoding/json"
	"errors"
	"os"
	"path/filepath"
	"slices"

	"github.com/uptrace/bun"

	"github.com/casegraph/casegraph/auth"
	"github.com/casegraph/casegraph/db"
	"github.com/casegraph/casegraph/engine"
)

// The reference engine's storage messages.
const (
	msgStorageCaseOwner   = "You must be case owner to perform this operation"
	msgStorageTenantOwner = "Only tenant owners can perform this operation"
)

// archivePath is where the archive of a case lives. Case ids are actor
// ids (validActorID), so they are safe file names.
func (s *Service) archivePath(caseID string) string {
	return filepath.Join(s.archiveDir, caseID+".json")
}

// storageCase loads a case for a storage command: case owners only;
// anyone outside the team gets NotFound. Sub cases go with their root.
func (s *Service) storageCase(ctx context.Context, tx bun.Tx, op string, who auth.Identity, id string) (caseAccess, error) {
	ca, err := s.memberCase(ctx, tx, op, who, id)
	if err != nil {
		return caseAccess{}, err
	}
	if !ca.actor.IsOwner {
		return caseAccess{}, E(op, NotAllowed, msgStorageCaseOwner)
	}
	if ca.rec.ParentCaseID != "" {
		return caseAccess{}, Ef(op, Invalid, "Case '%s' is a sub case: archive or delete its root case '%s'", id, ca.rec.RootCaseID)
	}
	return ca, nil
}

// ArchiveCase moves a case with its sub cases, tasks, timers and read
// rows into a JSON document in the archive directory, in one
// transaction. Case owners only. Its id stays taken until restored.
func (s *Service) ArchiveCase(ctx context.Context, who auth.Identity, id string) error {
	const op = "service.ArchiveCase"
	who = s.commandIdentity(who)
	if s.archiveDir == "" {
		return E(op, Unavailable, "Archiving is not configured")
	}
	path := s.archivePath(id)
	written := false
	err := s.command(ctx, op, func(ctx context.Context, tx bun.Tx) error {
		ca, err := s.storageCase(ctx, tx, op, who, id)
		if err != nil {
			return err
		}
		a, err := db.ExportCaseTree(ctx, tx, id)
		if err != nil {
			return err
		}
		a.ArchivedAt = s.now()
		if _, err := db.RemoveCaseTree(ctx, tx, id, ca.rec.Tenant, true, a.ArchivedAt); err != nil {
			return err
		}
		// Written before the commit: a commit that fails leaves a stray
		// file (removed below), never a case that is gone from both.
		if err := writeFileAtomic(path, a); err != nil {
			return err
		}
		written = true
		return nil
	})
	if err != nil && written {
		_ = os.Remove(path)
	}
	return err
}

// writeFileAtomic writes v as JSON to path through a synced temporary
// file, so that path never holds half an archive.
func writeFileAtomic(path string, v any) error {
	if err := os.MkdirAll(filepath.Dir(path), 0o700); err != nil {
		return err
	}
	f, err := os.CreateTemp(filepath.Dir(path), ".archive-*")
	if err != nil {
		return err
	}
	defer os.Remove(f.Name())
	if err := json.NewEncoder(f).Encode(v); err != nil {
		f.Close()
		return err
	}
	if err := f.Sync(); err != nil {
		f.Close()
		return err
	}
	if err := f.Close(); err != nil {
		return err
	}
	return os.Rename(f.Name(), path)
}

// RestoreCase puts an archived case back, in one transaction, and frees
// its ids. The reference engine lets any user restore by id; here, as
// for every case, only a member of the archived case's team may, and
// anyone else gets the NotFound an id without archive gets.
func (s *Service) RestoreCase(ctx context.Context, who auth.Identity, id string) error {
	const op = "service.RestoreCase"
	who = s.commandIdentity(who)
	notFound := Ef(op, NotFound, "An archive of case '%s' cannot be found", id)
	if s.archiveDir == "" || validActorID(id) != nil {
		return notFound
	}
	b, err := os.ReadFile(s.archivePath(id))
	if errors.Is(err, os.ErrNotExist) {
		return notFound
	}
	if err != nil {
		return wrap(op, err)
	}
	var a db.CaseArchive
	if err := json.Unmarshal(b, &a); err != nil || a.CaseID != id || len(a.Cases) == 0 {
		return &Error{Op: op, Kind: Internal, Msg: "the archive of case " + id + " is damaged"}
	}
	err = s.command(ctx, op, func(ctx context.Context, tx bun.Tx) error {
		retired, archived, err := db.IDRetired(ctx, tx, id)
		if err != nil {
			return err
		}
		if !retired || !archived {
			return notFound // restored already, or deleted since
		}
		roles, err := db.UserTenantRoles(ctx, tx, a.Tenant, who.UserID)
		if err != nil {
			return err
		}
		groups, err := db.CallerGroups(ctx, tx, who.UserID, a.Tenant)
		if err != nil {
			return err
		}
		for _, g := range groups[a.Tenant] {
			roles = append(roles, g.Roles...) // group roles match tenant-role members too
		}
		if !a.HasMember(string(engine.UserMember), who.UserID) && !slices.ContainsFunc(roles, func(r string) bool {
			return a.HasMember(string(engine.RoleMember), r)
		}) && !slices.ContainsFunc(groups[a.Tenant], func(g UserGroup) bool {
			return a.HasGroupMapping(g.GroupID, g.IsOwner, g.Roles)
		}) {
			return notFound
		}
		if err := db.ImportCaseTree(ctx, tx, a); err != nil {
			return err
		}
		return db.UnretireIDs(ctx, tx, a.IDs())
	})
	if err != nil {
		return err
	}
	if err := os.Remove(s.archivePath(id)); err != nil {
		s.logger.WarnContext(ctx, "restored archive not removed", "case_id", id, "error", err)
	}
	return nil
}

// DeleteCase deletes a case with its sub cases, tasks, timers and read
// rows, in one transaction. Case owners only. Its id is never reused.
func (s *Service) DeleteCase(ctx context.Context, who auth.Identity, id string) error {
	const op = "service.DeleteCase"
	who = s.commandIdentity(who)
	return s.command(ctx, op, func(ctx context.Context, tx bun.Tx) error {
		ca, err := s.storageCase(ctx, tx, op, who, id)
		if err != nil {
			return err
		}
		_, err = db.RemoveCaseTree(ctx, tx, id, ca.rec.Tenant, false, s.now())
		return err
	})
}

// DeleteTenant deletes a tenant with everything in it, in one
// transaction. Tenant owners only.
func (s *Service) DeleteTenant(ctx context.Context, who auth.Identity, tenant string) error {
	const op = "service.DeleteTenant"
	who = s.commandIdentity(who)
	return s.command(ctx, op, func(ctx context.Context, tx bun.Tx) error {
		if _, err := s.tenantOwner(ctx, tx, op, who, tenant); err != nil {
			if KindOf(err) == NotAllowed {
				return E(op, NotAllowed, msgStorageTenantOwner)
			}
			return err
		}
		return db.DeleteTenant(ctx, tx, tenant, s.now())
	})
}
