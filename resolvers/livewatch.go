package resolvers

import (
	"context"
	"errors"
	"fmt"
	"hash/fnv"
	"slices"
	"time"

	"github.com/casegraph/casegraph/model"
	"github.com/casegraph/casegraph/service"
)

// maxResume bounds the tasks a resuming taskChanged subscription is sent
// before the live events; more refuses the resume.
const maxResume = 1000

// maxWatched bounds the cases a task subscription remembers a watermark
// for; past it the memory starts afresh (see taskWatch.seen).
const maxWatched = 10000

// taskWatch turns committed changes into the task events one subscriber
// may see. Every event is read as the subscriber, through the service.
type taskWatch struct {
	svc *service.Service
	who service.Identity
	q   service.TaskQuery
	// seen is, per task already sent, a digest of what was sent: a task is
	// sent again only when its digest changed. Task rows keep their
	// lastModified through a claim, so the digest covers the fields a
	// command changes.
	seen map[string]uint64
}

// fingerprint digests what a command may change of a task.
func fingerprint(t service.Task, matches bool) uint64 {
	h := fnv.New64a()
	for _, s := range []string{t.TaskState, t.Assignee, t.Owner, t.ModifiedBy, t.LastModified.String(), fmt.Sprint(t.DueDate, matches)} {
		h.Write([]byte(s))
		h.Write([]byte{0})
	}
	h.Write(t.Output)
	return h.Sum64()
}

// errMissedTooMany refuses a resume that would send more than maxResume
// tasks: the client must read its list again.
var errMissedTooMany = service.Ef("graphql.subscription", service.Invalid,
	"More than %d tasks changed since after; read the tasks again and subscribe without after", maxResume)

// run sends first (the resume of after), then the events of each change.
func (w *taskWatch) run(ctx context.Context, changes *service.Subscription, first []*model.TaskChange, out chan<- *model.TaskChange) {
	defer close(out)
	send := func(ev *model.TaskChange) bool {
		select {
		case out <- ev:
			return true
		case <-ctx.Done():
			return false
		}
	}
	for _, ev := range first {
		if !send(ev) {
			return
		}
	}
	for {
		c, ok := changes.Next(ctx)
		if !ok {
			dropSlow(ctx, changes)
			return
		}
		events, stop := w.events(ctx, c)
		if stop {
			return
		}
		for _, ev := range events {
			if !send(ev) {
				return
			}
			changes.Sent(c)
		}
	}
}

// resume returns, as Resume events, the tasks of every case changed at or
// after since that the caller sees, and that differ from what was sent:
// every command moves its case's lastModified (a task's own stays through
// a claim), and a task that left the filter is sent with matchesFilter
// false, so nothing committed since is missed. More than maxResume tasks
// is errMissedTooMany.
func (w *taskWatch) resume(ctx context.Context, since time.Time) ([]*model.TaskChange, error) {
	all, err := w.svc.ListTasks(ctx, w.who, service.TaskQuery{Tenant: w.q.Tenant, CaseChangedSince: &since, NumberOfResults: maxResume + 1})
	if err != nil {
		return nil, err
	}
	matching := w.q
	matching.CaseChangedSince, matching.NumberOfResults = &since, maxResume+1
	hits, err := w.svc.ListTasks(ctx, w.who, matching)
	if err != nil {
		return nil, err
	}
	if len(all) > maxResume || len(hits) > maxResume {
		return nil, errMissedTooMany
	}
	// Newest change first: send the oldest first, as they happened.
	slices.Reverse(all)
	return w.diff("Resume", all, hits, func(string) bool { return false }), nil
}

// events are the task events of change c for the subscriber; stop is true
// when the connection was closed (the caller's account is disabled, or too
// much was missed to resume).
func (w *taskWatch) events(ctx context.Context, c service.Change) (_ []*model.TaskChange, stop bool) {
	if !c.Missed.IsZero() {
		evs, err := w.resume(ctx, c.Missed)
		if errors.Is(err, errMissedTooMany) {
			closeWith(ctx, closeTooSlow, "Too many changes were missed; read the tasks again and subscribe")
			return nil, true
		}
		return evs, disconnectIfDisabled(ctx, err)
	}
	if c.CaseID == "" {
		return nil, checkAccount(ctx, w.svc, w.who, c.Tenant)
	}
	v, err := w.svc.GetCase(ctx, w.who, c.CaseID)
	if err != nil {
		return nil, disconnectIfDisabled(ctx, err)
	}
	all, err := w.svc.ListTasks(ctx, w.who, service.TaskQuery{Tenant: w.q.Tenant, CaseID: c.CaseID, NumberOfResults: maxResume})
	if err != nil {
		return nil, disconnectIfDisabled(ctx, err)
	}
	matching := w.q
	matching.CaseID, matching.NumberOfResults = c.CaseID, maxResume
	hits, err := w.svc.ListTasks(ctx, w.who, matching)
	if err != nil {
		return nil, disconnectIfDisabled(ctx, err)
	}
	return w.diff(c.Kind, all, hits, v.MayPerform), false
}

// diff turns the tasks the caller sees (all) and those matching its filter
// (hits) into the events of those that differ from what was sent.
func (w *taskWatch) diff(kind string, all, hits []service.Task, mayPerform func(id string) bool) []*model.TaskChange {
	matches := make(map[string]bool, len(hits))
	for _, t := range hits {
		matches[t.ID] = true
		if !containsTask(all, t.ID) {
			all = append(all, t) // an assignee filter sees beyond the roles held
		}
	}
	if len(w.seen) >= maxWatched {
		// Forgetting only risks sending a task again, never missing one.
		clear(w.seen)
	}
	var out []*model.TaskChange
	for _, t := range all {
		fp := fingerprint(t, matches[t.ID])
		if prev, ok := w.seen[t.ID]; ok && prev == fp {
			continue // not changed by this command, as this caller sees it
		}
		w.seen[t.ID] = fp
		out = append(out, &model.TaskChange{Kind: kind, Task: toTask(t, mayPerform(t.ID)), MatchesFilter: matches[t.ID]})
	}
	return out
}

func containsTask(tasks []service.Task, id string) bool {
	for _, t := range tasks {
		if t.ID == id {
			return true
		}
	}
	return false
}

// watchCase sends case v each time a committed command changed it.
func watchCase(ctx context.Context, svc *service.Service, who service.Identity, v service.CaseView, changes *service.Subscription,
	after *time.Time, out chan<- *model.CaseChange) {
	defer close(out)
	send := func(ev *model.CaseChange) bool {
		select {
		case out <- ev:
			return true
		case <-ctx.Done():
			return false
		}
	}
	if after != nil && !v.Record.LastModified.Before(after.Add(-service.ResumeSlack)) {
		if !send(&model.CaseChange{Kind: "Resume", Case: toCase(v)}) {
			return
		}
	}
	id := v.Record.ID
	for {
		c, ok := changes.Next(ctx)
		if !ok {
			dropSlow(ctx, changes)
			return
		}
		kind := c.Kind
		if !c.Missed.IsZero() {
			kind = "Resume"
		} else if c.CaseID == "" {
			if checkAccount(ctx, svc, who, c.Tenant) {
				return
			}
			continue
		}
		if c.CaseID != id && c.Missed.IsZero() {
			continue
		}
		now, err := svc.GetCase(ctx, who, id)
		if err != nil {
			if disconnectIfDisabled(ctx, err) {
				return
			}
			continue // no longer in the team: nothing to hear
		}
		if !c.Missed.IsZero() && now.Record.LastModified.Before(c.Missed) {
			continue // not changed while changes were missed
		}
		if !send(&model.CaseChange{Kind: kind, Case: toCase(now)}) {
			return
		}
		changes.Sent(c)
	}
}

// checkAccount closes the connection when the caller's account in tenant
// is now disabled, and says so.
func checkAccount(ctx context.Context, svc *service.Service, who service.Identity, tenant string) bool {
	return disconnectIfDisabled(ctx, svc.CheckAccount(ctx, who, tenant))
}

func disconnectIfDisabled(ctx context.Context, err error) bool {
	if err == nil || !service.AccountDisabled(err) {
		return false
	}
	closeWith(ctx, closeDisabled, service.Message(err))
	return true
}

// dropSlow closes the connection of a subscriber the service dropped for
// falling behind.
func dropSlow(ctx context.Context, changes *service.Subscription) {
	if changes.Dropped() {
		closeWith(ctx, closeTooSlow, "Too slow: the client fell behind the live updates; reconnect with after")
	}
}
