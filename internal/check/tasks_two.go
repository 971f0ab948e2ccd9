package check

// Two tasks of 2025-11-25 made on one session: their ids differ, and
// tasks/list lists both.

import (
	"fmt"
)

func twoTaskChecks() []*Check {
	two := func(id string, run func(t *T, c *conn, ids [2]string)) *Check {
		return &Check{ID: id, needs: needs{era: "legacy", capability: "tasks.requests.tools.call"}, run: func(t *T) {
			tasksVersion(t)
			theTask(t) // the first task tells whether tasks can be made at all
			c, ids := twoTasks(t)
			run(t, c, ids)
		}}
	}
	return []*Check{
		two("tasks.unique-ids", func(t *T, _ *conn, ids [2]string) {
			if ids[0] == ids[1] {
				t.Fail("both tasks have the id %q", clip(ids[0], 80))
			}
		}),
		two("tasks.listed-all", func(t *T, c *conn, ids [2]string) {
			if !t.r.facts.declares("tasks.list") {
				t.Skip("the server declares no tasks.list")
			}
			for _, id := range ids {
				if !onTaskList(t, c, id) {
					t.Sent(fmt.Sprintf("two tools/call made as tasks (%s, %s), then tasks/list, every page", ids[0], ids[1]))
					t.Fail("the task %s, which the session made, is not on tasks/list", id)
				}
			}
		}),
	}
}

// twoTasks makes two tasks of the first tool a task is made of, one after
// the other, on a session of their own, and returns it and their ids; t
// is skipped when a call makes no task.
func twoTasks(t *T) (*conn, [2]string) {
	i := taskTool(t)
	c := t.fresh(connOptions{era: "legacy", capabilities: answering})
	var ids [2]string
	for n := range ids {
		m, _ := t.request(c, "tools/call", taskCallParams(t, i, fmt.Sprintf(`"mcpv-check-progress-task-%d"`, n+1)))
		ids[n] = str1(member(member(m.Result, "task"), "taskId"))
		if m.Error != nil || ids[n] == "" {
			t.Skip("call %d of %s made as a task made none", n+1, t.r.opts.Calls[i].Tool)
		}
	}
	t.Sent(fmt.Sprintf("two tools/call of %s made as tasks, on one session", t.r.opts.Calls[i].Tool))
	t.Got(fmt.Sprintf("tasks %q and %q", ids[0], ids[1]))
	return c, ids
}
