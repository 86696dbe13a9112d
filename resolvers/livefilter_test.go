package resolvers_test

import (
	"fmt"
	"io"
	"net/http"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/casegraph/casegraph/cmd/casegraph/server/servertest"
	"github.com/casegraph/casegraph/db/dbtest"
	"github.com/casegraph/casegraph/graph/client"
)

// TestLiveChangeCostIndependentOfSubscribers: with one team member among
// the taskChanged subscribers, a change costs the same SQL statements
// whether 2 or 20 strangers subscribe too: who the change may concern is
// read once, and only the member's subscription reads the case.
func TestLiveChangeCostIndependentOfSubscribers(t *testing.T) {
	servertest.ForEachDB(t, func(t *testing.T, env *servertest.Env) {
		deployIncident(t, env)
		_, taskID := startIncident(t, env)
		svc := env.Server.Service()
		carl := liveAs(t, env, "carl")
		carl.subscribe("1", taskChangedQuery, nil)
		strangers := 0
		addStrangers := func(n int) {
			for range n {
				liveAs(t, env, fmt.Sprint("stranger", strangers)).subscribe("1", taskChangedQuery, nil)
				strangers++
			}
			waitSubscribers(t, env, 1+strangers)
		}
		counter := &statementCounter{}
		//lint:ignore SA1019 the database is already in use; WithQueryHook would give a clone it does not use
		env.Server.DB().AddQueryHook(counter)
		// change claims or revokes the task and returns the statements
		// run until carl heard it and every stranger skipped it.
		change := func(claim bool) int64 {
			t.Helper()
			skipped := svc.LiveStats().Skipped
			counter.n.Store(0)
			var err error
			if claim {
				_, err = client.ClaimTask(ctx, env.GraphQL("carl"), taskID)
			} else {
				_, err = client.RevokeTask(ctx, env.GraphQL("carl"), taskID)
			}
			if err != nil {
				t.Fatal(err)
			}
			if ev := carl.nextTask("1"); ev.Task.ID != taskID {
				t.Fatalf("carl heard %+v", ev)
			}
			dbtest.Until(t, 10*time.Second, "the strangers skipping the change", func() (bool, error) {
				return svc.LiveStats().Skipped-skipped >= uint64(strangers), nil
			})
			return counter.n.Load()
		}
		addStrangers(2)
		claimFew, revokeFew := change(true), change(false)
		addStrangers(18)
		claimMany, revokeMany := change(true), change(false)
		if claimMany != claimFew || revokeMany != revokeFew {
			t.Fatalf("statements of a claim and a revoke: %d and %d with 2 strangers subscribed, %d and %d with 20",
				claimFew, revokeFew, claimMany, revokeMany)
		}
		st := svc.LiveStats()
		if st.AudienceAll != 0 || st.AudienceReads < 4 || st.TaskSubscriptions != 21 || st.Connections < 21 {
			t.Fatalf("live stats %+v", st)
		}
		t.Logf("a claim costs %d statements, a revoke %d, with 2 or 20 strangers subscribed", claimMany, revokeMany)
	})
}

// TestLiveReachesEveryMembership: the filter before reading lets through
// a member by consent group and one by tenant role; one who loses the
// role hears nothing more of the case, and a group member whose group role
// the team does not map hears nothing.
func TestLiveReachesEveryMembership(t *testing.T) {
	servertest.ForEachDB(t, func(t *testing.T, env *servertest.Env) {
		startGroupCases(t, env, 0) // acme, group g1 (dave approver, erin other), the inbox definition
		if _, err := client.SetTenantUser(ctx, env.GraphQL("alice"), "acme", client.TenantUserInput{UserId: "fay", Roles: []string{"clerk"}}); err != nil {
			t.Fatal(err)
		}
		subs := map[string]*liveClient{}
		for _, u := range []string{"dave", "erin", "fay"} {
			subs[u] = liveAs(t, env, u)
			subs[u].subscribe("1", taskChangedQuery, nil)
		}
		waitSubscribers(t, env, 3)
		group, role := client.MemberTypeGroup, client.MemberTypeRole
		start := func(team ...client.CaseTeamMemberInput) string {
			t.Helper()
			team = append(team, client.CaseTeamMemberInput{MemberId: "alice", IsOwner: ptr(true)})
			resp, err := client.StartCase(ctx, env.GraphQL("alice"), client.StartCaseInput{Definition: "inbox", Tenant: ptr("acme"), Team: team})
			if err != nil {
				t.Fatal(err)
			}
			return resp.StartCase.Id
		}
		// until returns the cases of the events user heard before the
		// first of caseID.
		until := func(user, caseID string) map[string]bool {
			t.Helper()
			before := map[string]bool{}
			for {
				ev := subs[user].nextTask("1")
				if ev.Task.Case.ID == caseID {
					return before
				}
				before[ev.Task.Case.ID] = true
			}
		}
		byGroup := start(client.CaseTeamMemberInput{MemberId: "g1", MemberType: &group,
			Mappings: []client.GroupMappingInput{{GroupRole: "approver", CaseRoles: []string{"Approver"}}}})
		until("dave", byGroup)
		byRole := start(client.CaseTeamMemberInput{MemberId: "clerk", MemberType: &role, CaseRoles: []string{"Approver"}})
		until("fay", byRole)
		mark := start(client.CaseTeamMemberInput{MemberId: "fay"})
		until("fay", mark) // the rest of byRole's first events

		// fay loses the role: a change of that case stays unheard, a case
		// naming her is heard; erin heard neither group nor role case.
		if _, err := client.SetTenantUser(ctx, env.GraphQL("alice"), "acme", client.TenantUserInput{UserId: "fay", Roles: []string{}}); err != nil {
			t.Fatal(err)
		}
		tasks, err := client.CaseTasks(ctx, env.GraphQL("alice"), byRole)
		if err != nil || len(tasks.Case.Tasks) == 0 {
			t.Fatalf("tasks of %s: %+v %v", byRole, tasks, err)
		}
		if _, err := client.AssignTask(ctx, env.GraphQL("alice"), tasks.Case.Tasks[0].Id, "alice"); err != nil {
			t.Fatal(err)
		}
		direct := start(client.CaseTeamMemberInput{MemberId: "fay"}, client.CaseTeamMemberInput{MemberId: "erin"})
		if heard := until("fay", direct); heard[byRole] {
			t.Fatalf("fay heard case %s after losing its role", byRole)
		}
		if heard := until("erin", direct); heard[byRole] || heard[byGroup] || heard[mark] {
			t.Fatalf("erin heard cases %v, want only %s", heard, direct)
		}
		if st := env.Server.Service().LiveStats(); st.Skipped == 0 || st.AudienceAll != 0 {
			t.Fatalf("live stats %+v: nothing skipped unread", st)
		}
	})
}

// scrapeLive returns the casegraph_live_ series of env's /metrics by name
// with labels, as Prometheus writes them.
func scrapeLive(t *testing.T, env *servertest.Env) map[string]float64 {
	t.Helper()
	resp, err := http.Get(env.URL + "/metrics")
	if err != nil {
		t.Fatal(err)
	}
	defer resp.Body.Close()
	b, err := io.ReadAll(resp.Body)
	if err != nil || resp.StatusCode != 200 {
		t.Fatalf("/metrics: %d %v", resp.StatusCode, err)
	}
	out := map[string]float64{}
	for _, line := range strings.Split(string(b), "\n") {
		if !strings.HasPrefix(line, "casegraph_live_") {
			continue
		}
		i := strings.LastIndexByte(line, ' ')
		v, err := strconv.ParseFloat(line[i+1:], 64)
		if err != nil {
			t.Fatalf("metric line %q: %v", line, err)
		}
		out[line[:i]] = v
	}
	return out
}

// TestLiveMetrics: /metrics follows live connections, subscriptions by
// kind, changes heard and skipped, events sent and their delay.
func TestLiveMetrics(t *testing.T) {
	servertest.ForEachDB(t, func(t *testing.T, env *servertest.Env) {
		deployIncident(t, env)
		caseID, taskID := startIncident(t, env)
		before := scrapeLive(t, env)
		carl, carl2, stranger := liveAs(t, env, "carl"), liveAs(t, env, "carl"), liveAs(t, env, "stranger")
		carl.subscribe("t", taskChangedQuery, nil)
		carl2.subscribe("c", `subscription($id: ID!) { caseChanged(id: $id) { kind } }`, map[string]any{"id": caseID})
		stranger.subscribe("t", taskChangedQuery, nil)
		waitSubscribers(t, env, 3)
		if _, err := client.ClaimTask(ctx, env.GraphQL("carl"), taskID); err != nil {
			t.Fatal(err)
		}
		if ev := carl.nextTask("t"); ev.Kind != "ClaimTask" {
			t.Fatalf("carl heard %+v", ev)
		}
		if m, err := carl2.next("c", 10*time.Second); err != nil || !strings.Contains(string(m.Payload), "ClaimTask") {
			t.Fatalf("caseChanged: %s %v", m.Payload, err)
		}
		var after map[string]float64
		grew := func(name string, by float64) bool { return after[name]-before[name] >= by }
		dbtest.Until(t, 10*time.Second, "the live metrics", func() (bool, error) {
			after = scrapeLive(t, env)
			return grew("casegraph_live_changes_skipped_total", 1), nil
		})
		for name, want := range map[string]float64{
			"casegraph_live_connections":                3,
			`casegraph_live_subscriptions{kind="task"}`: 2,
			`casegraph_live_subscriptions{kind="case"}`: 1,
		} {
			if after[name] != want {
				t.Errorf("%s = %v, want %v", name, after[name], want)
			}
		}
		for _, name := range []string{"casegraph_live_changes_total", "casegraph_live_audience_reads_total",
			"casegraph_live_events_total", "casegraph_live_delay_seconds_count"} {
			if !grew(name, 1) {
				t.Errorf("%s did not grow: %v → %v", name, before[name], after[name])
			}
		}
		if !grew("casegraph_live_events_total", 2) || after["casegraph_live_audience_fallbacks_total"] != 0 {
			t.Errorf("events %v → %v (want 2 more), fallbacks %v", before["casegraph_live_events_total"],
				after["casegraph_live_events_total"], after["casegraph_live_audience_fallbacks_total"])
		}
	})
}

// TestLiveResumeIsExact: a client that reconnects with after hears every
// change committed since, also a claim (which keeps the task's
// lastModified) and a task that left its filter.
func TestLiveResumeIsExact(t *testing.T) {
	servertest.ForEachDB(t, func(t *testing.T, env *servertest.Env) {
		deployIncident(t, env)
		_, taskID := startIncident(t, env)
		_, otherTask := startIncident(t, env)
		carl := liveAs(t, env, "carl")
		unassigned := map[string]any{"tenant": "acme", "states": []string{"UNASSIGNED"}}
		carl.subscribe("1", taskChangedQuery, map[string]any{"filter": unassigned})
		waitSubscribers(t, env, 1)
		if _, err := client.ClaimTask(ctx, env.GraphQL("carl"), otherTask); err != nil {
			t.Fatal(err)
		}
		ev := carl.nextTask("1")
		cursor := time.Now().UTC() // the newest the client saw
		if ev.Task.ID != otherTask {
			t.Fatalf("live: %+v", ev)
		}
		_ = carl.conn.CloseNow()

		// While away: the task is claimed (its lastModified stays) and so
		// leaves the UNASSIGNED filter.
		if _, err := client.ClaimTask(ctx, env.GraphQL("carl"), taskID); err != nil {
			t.Fatal(err)
		}
		again := liveAs(t, env, "carl")
		again.subscribe("1", taskChangedQuery, map[string]any{"filter": unassigned, "after": cursor.Format(time.RFC3339Nano)})
		got := map[string]taskEvent{}
		for len(got) < 2 {
			ev := again.nextTask("1")
			if ev.Kind != "Resume" {
				t.Fatalf("resume sent %+v", ev)
			}
			got[ev.Task.ID] = ev
		}
		if ev := got[taskID]; ev.Task.State != "ASSIGNED" || ev.MatchesFilter || ev.Task.Assignee == nil || *ev.Task.Assignee != "carl" {
			t.Fatalf("the claim made while away: %+v", ev)
		}
	})
}

// TestLiveResyncAfterListenerLoss: when a replica's listening connection
// to PostgreSQL breaks, a change committed on another replica before it
// listens again still reaches its subscribers: they read what they may
// have missed once it listens again.
func TestLiveResyncAfterListenerLoss(t *testing.T) {
	if dbtest.DatabaseURL() == "none" {
		t.Skip("needs PostgreSQL")
	}
	t.Parallel()
	env, env2, taskID, carl := tasksFollowedOnOtherReplica(t)

	// Both servers listen on the test schema's channel: end both.
	svc2 := env2.Server.Service()
	var pids []int
	if err := env2.Server.DB().NewRaw(`SELECT pid FROM pg_stat_activity
		WHERE datname = current_database() AND query = 'LISTEN "casegraph_' || left(md5(current_schema()), 16) || '"'`).
		Scan(ctx, &pids); err != nil || len(pids) != 2 {
		t.Fatalf("listening backends %v: %v", pids, err)
	}
	for _, pid := range pids {
		if _, err := env2.Server.DB().ExecContext(ctx, "SELECT pg_terminate_backend(?)", pid); err != nil {
			t.Fatal(err)
		}
	}
	dbtest.Until(t, 10*time.Second, "the listener to notice", func() (bool, error) { return !svc2.LiveListening(), nil })
	if _, err := client.ClaimTask(ctx, env.GraphQL("carl"), taskID); err != nil {
		t.Fatal(err)
	}
	// The listener may be back before the claim commits (its first pause
	// is short): its resync then tells carl the task as it still was, and
	// the claim follows. Either way the claim must arrive.
	ev := carl.nextTask("1")
	if ev.Kind == "Resume" && ev.Task.ID == taskID && ev.Task.State == "UNASSIGNED" {
		ev = carl.nextTask("1")
	}
	if ev.Task.ID != taskID || ev.Task.State != "ASSIGNED" {
		t.Fatalf("after the listener came back carl heard %+v", ev)
	}
	if st := svc2.LiveStats(); st.Resyncs == 0 {
		t.Fatalf("live stats %+v: no resync", st)
	}
	t.Logf("the claim arrived as %s", ev.Kind)
}
