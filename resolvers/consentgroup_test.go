package resolvers_test

import (
	"encoding/json"
	"fmt"
	"testing"

	"github.com/casegraph/casegraph/cmd/casegraph/server/servertest"
	"github.com/casegraph/casegraph/graph/client"
)

// groupMembers prints a group's members as user:owner:roles, for compact
// comparisons.
func groupMembers(members any) string {
	b, _ := json.Marshal(members)
	var list []struct {
		UserID  string
		IsOwner bool
		Roles   []string
	}
	_ = json.Unmarshal(b, &list)
	s := ""
	for _, m := range list {
		s += fmt.Sprintf("%s:%v:%v ", m.UserID, m.IsOwner, m.Roles)
	}
	return s
}

// TestConsentGroups: tenant owners create groups, members read them,
// non-members see null as for an unknown id, group owners change them and
// the group keeps an owner; the caller's groups are in me.
func TestConsentGroups(t *testing.T) {
	servertest.ForEachDB(t, func(t *testing.T, env *servertest.Env) {
		createTenant(t, env, "acme")
		in := client.CreateConsentGroupInput{Id: ptr("g1"), Members: []client.ConsentGroupMemberInput{
			{UserId: "bob", IsOwner: ptr(true), Roles: []string{"lead"}},
			{UserId: "dave", Roles: []string{"clerk", "agent"}},
		}}
		_, err := client.CreateConsentGroup(ctx, env.GraphQL("bob"), "acme", in)
		expectCode(t, err, "FORBIDDEN", "Only tenant owners can create consent groups")
		created, err := client.CreateConsentGroup(ctx, env.GraphQL("alice"), "acme", in)
		if err != nil {
			t.Fatal(err)
		}
		if g := created.CreateConsentGroup; g.Id != "g1" || g.Tenant != "acme" ||
			groupMembers(g.Members) != "bob:true:[lead] dave:false:[agent clerk] " {
			t.Fatalf("created %+v", g)
		}
		_, err = client.CreateConsentGroup(ctx, env.GraphQL("alice"), "acme", in)
		expectCode(t, err, "BAD_USER_INPUT", "Failure while handling message CreateConsentGroup. Check the server logs for more details. Consent group already exists")
		_, err = client.CreateConsentGroup(ctx, env.GraphQL("alice"), "acme",
			client.CreateConsentGroupInput{Members: []client.ConsentGroupMemberInput{{UserId: "bob"}}})
		expectCode(t, err, "BAD_USER_INPUT", "Consent group must have at least one owner")

		// Members read it; the tenant owner outside it and strangers see null.
		for _, who := range []string{"bob", "dave"} {
			got, err := client.ConsentGroup(ctx, env.GraphQL(who), "g1")
			if err != nil || got.ConsentGroup == nil || len(got.ConsentGroup.Members) != 2 {
				t.Fatalf("%s reads %+v %v", who, got, err)
			}
		}
		for _, id := range []string{"g1", "nosuch"} {
			got, err := client.ConsentGroup(ctx, env.GraphQL("alice"), id)
			if err != nil || got.ConsentGroup != nil {
				t.Fatalf("alice reads %s: %+v %v, want null", id, got.ConsentGroup, err)
			}
		}
		mine, err := client.MyGroups(ctx, env.GraphQL("dave"))
		if err != nil || len(mine.Me.Groups) != 1 || mine.Me.Groups[0].GroupId != "g1" || mine.Me.Groups[0].Tenant != "acme" ||
			mine.Me.Groups[0].IsOwner || fmt.Sprint(mine.Me.Groups[0].Roles) != "[agent clerk]" {
			t.Fatalf("dave's groups %+v %v", mine, err)
		}

		// Group owners change it; members may not.
		_, err = client.SetConsentGroupMember(ctx, env.GraphQL("dave"), "g1", client.ConsentGroupMemberInput{UserId: "erin"})
		expectCode(t, err, "FORBIDDEN", "You do not have the privileges to perform this action")
		_, err = client.SetConsentGroupMember(ctx, env.GraphQL("alice"), "g1", client.ConsentGroupMemberInput{UserId: "erin"})
		expectCode(t, err, "NOT_FOUND", "A consent group with id 'g1' cannot be found.")
		set, err := client.SetConsentGroupMember(ctx, env.GraphQL("bob"), "g1", client.ConsentGroupMemberInput{UserId: "erin", IsOwner: ptr(true)})
		if err != nil || groupMembers(set.SetConsentGroupMember.Members) != "bob:true:[lead] dave:false:[agent clerk] erin:true:[] " {
			t.Fatalf("set erin: %+v %v", set, err)
		}
		removed, err := client.RemoveConsentGroupMember(ctx, env.GraphQL("erin"), "g1", "bob")
		if err != nil || groupMembers(removed.RemoveConsentGroupMember.Members) != "dave:false:[agent clerk] erin:true:[] " {
			t.Fatalf("remove bob: %+v %v", removed, err)
		}
		_, err = client.RemoveConsentGroupMember(ctx, env.GraphQL("erin"), "g1", "erin")
		expectCode(t, err, "BAD_USER_INPUT", "Cannot remove group ownership of user erin. There must be at least one group owner.")
		_, err = client.ReplaceConsentGroup(ctx, env.GraphQL("erin"), "g1", []client.ConsentGroupMemberInput{})
		expectCode(t, err, "BAD_USER_INPUT", "Consent group must have members")
		replaced, err := client.ReplaceConsentGroup(ctx, env.GraphQL("erin"), "g1", []client.ConsentGroupMemberInput{
			{UserId: "dave", IsOwner: ptr(true)}})
		if err != nil || groupMembers(replaced.ReplaceConsentGroup.Members) != "dave:true:[] " {
			t.Fatalf("replace: %+v %v", replaced, err)
		}
		// erin left with the replacement: the group is hidden from her now.
		got, err := client.ConsentGroup(ctx, env.GraphQL("erin"), "g1")
		if err != nil || got.ConsentGroup != nil {
			t.Fatalf("erin reads %+v %v, want null", got.ConsentGroup, err)
		}
	})
}
