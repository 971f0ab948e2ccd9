package check

// Two tasks of 2025-11-25 made on one session: their ids differ, and
// tasks/list lists both.

import (
	"fmt"
)

func twoTaskChecks() []*Check {
	return []*Check{{ID: "tasks.unique-ids", needs: needs{era: "legacy", capability: "tasks.requests.tools.call"}, run: twoTasksListed}}
}

// twoTasksListed makes two tasks on one session: their ids differ, and
// tasks/list, where declared, lists both.
func twoTasksListed(t *T) {
	tasksVersion(t)
	theTask(t) // the first task tells whether tasks can be made at all
	c, ids := twoTasks(t)
	if ids[0] == ids[1] {
		t.Fail("both tasks have the id %q", clip(ids[0], 80))
	}
	if !t.r.facts.declares("tasks.list") {
		return
	}
	for _, id := range ids {
		if listed, ended := onTaskList(t, c, id); !listed {
			t.Sent(fmt.Sprintf("two tools/call made as tasks (%s, %s), then tasks/list, every page", ids[0], ids[1]))
			if !ended {
				t.Inconclusive("tasks/list went on past 20 pages without the task %s: whether it lists it is not known", id)
			}
			t.Fail("the task %s, which the session made, is not on tasks/list", id)
		}
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
