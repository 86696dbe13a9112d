package service

import (
	"context"
	"errors"
	"fmt"
	"unicode"
	"unicode/utf8"

	"github.com/casegraph/casegraph/db"
)

// Limits bound what one request may ask the server to store, so that no
// caller can grow a team, a tenant or a case file without end. Every
// refusal is Invalid (REST 400, GraphQL BAD_USER_INPUT) and names the field
// and the limit.
type Limits struct {
	// IdentifierLength bounds user ids, role names, tenant names and
	// definition names, in bytes. Default 255.
	IdentifierLength int
	// TeamMembers bounds the members of one case team. Default 1000.
	TeamMembers int
	// TenantUsers bounds the users of one tenant request (create or
	// replace). Default 1000.
	TenantUsers int
	// RolesPerUser bounds the tenant roles of one user and the case roles
	// of one team member. Default 100.
	RolesPerUser int
	// CaseFileBytes bounds a case file's JSON. Default 4 MiB.
	CaseFileBytes int
}

// DefaultLimits are the limits of a server that configures none.
var DefaultLimits = Limits{IdentifierLength: 255, TeamMembers: 1000, TenantUsers: 1000, RolesPerUser: 100, CaseFileBytes: 4 << 20}

func (l Limits) withDefaults() Limits {
	d := DefaultLimits
	if l.IdentifierLength <= 0 {
		l.IdentifierLength = d.IdentifierLength
	}
	if l.TeamMembers <= 0 {
		l.TeamMembers = d.TeamMembers
	}
	if l.TenantUsers <= 0 {
		l.TenantUsers = d.TenantUsers
	}
	if l.RolesPerUser <= 0 {
		l.RolesPerUser = d.RolesPerUser
	}
	if l.CaseFileBytes <= 0 {
		l.CaseFileBytes = d.CaseFileBytes
	}
	return l
}

// checkIdentifier refuses an identifier (a user id or a role name) that
// is too long or holds characters no identifier needs: control characters
// and invalid UTF-8. field names it in the answer.
func (s *Service) checkIdentifier(op, field, v string) error {
	if len(v) > s.limits.IdentifierLength {
		return Ef(op, Invalid, "%s is %d bytes long; the limit is %d", field, len(v), s.limits.IdentifierLength)
	}
	if !utf8.ValidString(v) {
		return Ef(op, Invalid, "%s is not valid UTF-8", field)
	}
	for _, r := range v {
		if unicode.IsControl(r) {
			return Ef(op, Invalid, "%s contains the control character %q, which no identifier may hold", field, r)
		}
	}
	return nil
}

// checkCount refuses a list longer than limit.
func checkCount(op, field string, n, limit int) error {
	if n > limit {
		return Ef(op, Invalid, "%s has %d entries; the limit is %d", field, n, limit)
	}
	return nil
}

// checkUser checks a tenant user's id and roles against the limits.
func (s *Service) checkUser(op string, u UserInput) error {
	if err := s.checkIdentifier(op, "userId", u.UserID); err != nil {
		return err
	}
	if err := checkCount(op, fmt.Sprintf("roles of user '%s'", u.UserID), len(u.Roles), s.limits.RolesPerUser); err != nil {
		return err
	}
	for _, r := range u.Roles {
		if err := s.checkIdentifier(op, "role", r); err != nil {
			return err
		}
	}
	for field, v := range map[string]*string{"name": u.Name, "email": u.Email} {
		if v != nil && len(*v) > 4*s.limits.IdentifierLength {
			return Ef(op, Invalid, "%s of user '%s' is %d bytes long; the limit is %d", field, u.UserID, len(*v), 4*s.limits.IdentifierLength)
		}
	}
	return nil
}

// checkMembers checks case team members against the limits.
func (s *Service) checkMembers(op string, members []MemberInput) error {
	if err := checkCount(op, "the case team", len(members), s.limits.TeamMembers); err != nil {
		return err
	}
	for _, m := range members {
		field := "userId"
		switch m.Type {
		case RoleMember:
			field = "tenantRole"
		case GroupTeamMember:
			field = "groupId"
			if err := checkCount(op, fmt.Sprintf("mappings of group '%s'", m.ID), len(m.Mappings), s.limits.RolesPerUser); err != nil {
				return err
			}
			for _, mp := range m.Mappings {
				if err := s.checkIdentifier(op, "groupRole", mp.GroupRole); err != nil {
					return err
				}
				if err := checkCount(op, fmt.Sprintf("caseRoles of a mapping of group '%s'", m.ID), len(mp.CaseRoles), s.limits.RolesPerUser); err != nil {
					return err
				}
			}
		}
		if err := s.checkIdentifier(op, field, m.ID); err != nil {
			return err
		}
		if err := checkCount(op, fmt.Sprintf("caseRoles of member '%s'", m.ID), len(m.CaseRoles), s.limits.RolesPerUser); err != nil {
			return err
		}
	}
	return nil
}

// fileTooLarge turns a case file over the limit into Invalid.
func fileTooLarge(op string, err error) error {
	var e *db.FileTooLargeError
	if errors.As(err, &e) {
		return Ef(op, Invalid, "The case file would be %d bytes; the limit is %d bytes", e.Size, e.Limit)
	}
	return err
}

// WithStateBudget bounds the case states read with ctx to max snapshot
// bytes (a decoded state takes about 3.4 times its snapshot); past it a
// read fails as Invalid. GraphQL gives every request and every event of a
// subscription one.
func WithStateBudget(ctx context.Context, max int64) context.Context {
	return db.WithStateBudget(ctx, max)
}
