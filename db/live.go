package db

import (
	"context"
	"fmt"

	"github.com/uptrace/bun"
)

// caseAudienceSQL names every user the team of case ?0 may reach, by the
// branches of membershipBranches, but wider: enabled or not, whatever the
// group mapping's group role. Live updates ask it once per change so that
// only these users' subscriptions read the case as their callers; those
// reads decide what each may see, so a user too many costs a read and a
// user too few would miss an event. Each branch starts from the case's
// team rows (its primary key) and probes one index per row.
const caseAudienceSQL = `SELECT m.member_id AS user_id FROM case_team_members AS m
	WHERE m.case_id = ?0 AND m.member_type = 'user'
UNION
SELECT r.user_id FROM case_team_members AS m
	JOIN cases AS c ON c.id = m.case_id
	JOIN tenant_user_roles AS r ON r.tenant = c.tenant AND r.role = m.member_id
	WHERE m.case_id = ?0 AND m.member_type = 'role'
UNION
SELECT gr.user_id FROM case_team_members AS m
	JOIN cases AS c ON c.id = m.case_id
	JOIN consent_groups AS g ON g.tenant = c.tenant
	JOIN consent_group_member_roles AS gr ON gr.group_id = g.id AND gr.role = m.member_id
	WHERE m.case_id = ?0 AND m.member_type = 'role'
UNION
SELECT gm.user_id FROM case_team_members AS m
	JOIN consent_group_members AS gm ON gm.group_id = m.member_id
	WHERE m.case_id = ?0 AND m.member_type = 'group'
LIMIT ?1`

var caseAudience = newStatement(caseAudienceSQL)

// CaseAudience returns the users who may be in the team of case caseID
// (see caseAudienceSQL), none for a case that does not exist. complete is
// false when there are more than limit: the caller then treats everyone as
// a possible member.
func CaseAudience(ctx context.Context, idb bun.IDB, caseID string, limit int) (users []string, complete bool, err error) {
	if err := caseAudience.scan(ctx, idb, &users, caseID, limit+1); err != nil {
		return nil, false, fmt.Errorf("db: case audience: %w", err)
	}
	if len(users) > limit {
		return nil, false, nil
	}
	return users, true, nil
}

// DisabledUsers returns the users whose account in tenant is disabled;
// complete is false when there are more than limit.
func DisabledUsers(ctx context.Context, idb bun.IDB, tenant string, limit int) (users []string, complete bool, err error) {
	err = idb.NewRaw("SELECT user_id FROM tenant_users WHERE tenant = ? AND NOT enabled LIMIT ?", tenant, limit+1).Scan(ctx, &users)
	if err != nil {
		return nil, false, fmt.Errorf("db: disabled users: %w", err)
	}
	if len(users) > limit {
		return nil, false, nil
	}
	return users, true, nil
}
