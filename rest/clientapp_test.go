package rest_test

import (
	"strings"
	"testing"
	"time"

	"github.com/casegraph/casegraph/cmd/casegraph/server"
	"github.com/casegraph/casegraph/cmd/casegraph/server/servertest"
)

// TestClientApp follows the reference engine's TestClientApp: a
// configured client application's token runs commands as the user named
// in On-Behalf-Of, with that user's rights; its own queries see nothing
// and it cannot claim.
func TestClientApp(t *testing.T) {
	servertest.ForEachDB(t, func(t *testing.T, env *servertest.Env) {
		id := setupPermit(t, env)
		clientToken := func(clientID string) string {
			return env.Issuer.SignRaw(map[string]any{"iss": env.Issuer.URL, "sub": "service-account-" + clientID,
				"client_id": clientID, "exp": time.Now().Add(time.Hour).Unix()})
		}
		app, stranger := clientToken("backoffice"), clientToken("unknown-app")
		as := func(token, onBehalfOf, method, path string, body any) *servertest.Response {
			h := map[string]string{"CorrelationId": "batch-42"}
			if onBehalfOf != "" {
				h["On-Behalf-Of"] = onBehalfOf
			}
			return env.Do(servertest.Request{Method: method, Path: path, Token: token, Body: body, Header: h})
		}
		notFound := "A case with id '" + id + "' cannot be found."

		// On behalf of the owner alice: an owner's command succeeds.
		expect(t, as(app, "alice", "POST", "/cases/"+id+"/caseteam/users", map[string]any{"userId": "carl", "caseRoles": []string{"Clerk"}}), 200, "")
		// On behalf of bob, a member but no owner: bob's rights, not more.
		expect(t, as(app, "bob", "POST", "/cases/"+id+"/caseteam/users", map[string]any{"userId": "dora"}), 401,
			"Only case team owners can perform this action")
		// On behalf of someone outside the team: hidden.
		expect(t, as(app, "zed", "PUT", "/cases/"+id+"/debug/true", nil), 404, notFound)
		// Without On-Behalf-Of, or from an unconfigured client, or with a
		// user's token, the header changes nothing.
		expect(t, as(app, "", "PUT", "/cases/"+id+"/debug/true", nil), 404, notFound)
		expect(t, as(stranger, "alice", "PUT", "/cases/"+id+"/debug/true", nil), 404, notFound)
		expect(t, env.Do(servertest.Request{Method: "PUT", Path: "/cases/" + id + "/debug/true", User: "zed",
			Header: map[string]string{"On-Behalf-Of": "alice"}}), 404, notFound)

		// Its own queries see nothing, even naming a user.
		expect(t, as(app, "alice", "GET", "/cases/"+id, nil), 404, notFound)
		expect(t, as(app, "alice", "GET", "/tasks/case/"+id, nil), 404, notFound)
		review := taskNamed(t, env, "alice", id, "Review application")
		expect(t, as(app, "alice", "PUT", "/tasks/"+review.ID+"/claim", nil), 401,
			"A client application cannot claim a task; the user must claim it")
		// Other task commands run as the user.
		expect(t, as(app, "alice", "PUT", "/tasks/"+review.ID+"/assign", map[string]any{"assignee": "alice"}), 202, "")
		if got := taskNamed(t, env, "alice", id, "Review application"); got.Assignee != "alice" {
			t.Fatalf("assignee = %q", got.Assignee)
		}

		// The commands are alice's, tied to the request's correlation id.
		var events []struct {
			Type    string
			Content struct {
				ModelEvent struct {
					CorrelationID string
					User          struct{ UserID string }
				}
			}
		}
		env.Do(servertest.Request{Method: "GET", Path: "/cases/" + id + "/history/events", User: "alice"}).JSON(t, &events)
		var byApp []string
		for _, e := range events {
			if e.Content.ModelEvent.CorrelationID == "batch-42" {
				byApp = append(byApp, e.Content.ModelEvent.User.UserID+":"+e.Type)
			}
		}
		if len(byApp) == 0 || strings.Contains(strings.Join(byApp, ","), "service-account") {
			t.Fatalf("events of the client's requests: %v", byApp)
		}
		for _, e := range byApp {
			if !strings.HasPrefix(e, "alice:") {
				t.Fatalf("events of the client's requests: %v", byApp)
			}
		}
	}, func(c *server.Config) { c.ClientApps = []string{"backoffice"} })
}
