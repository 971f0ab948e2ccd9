package mcptest

// Task support, on with tasks=STATUS[/STATUS...]:
//
//   - tools/call job with params.task makes task-N ("working") and answers
//     {"task":Task}, then sends progress 1/2 if _meta.progressToken was given
//     (2/2 comes when the task completes or fails). Without params.task, job
//     answers "job done". -32601 for a task on a forbidden job or any other
//     tool, and for a required job called without one.
//   - Statuses: working, input_required, completed, failed, cancelled, expire.
//     Each tasks/get moves the task one status along (the last one sticks,
//     terminal ones never change) and answers the Task flat, after a
//     notifications/tasks/status for any change. "expire" drops the task
//     (straight after its creation when listed first): get, result and
//     cancel then answer -32602 "Task not found or expired: ID".
//   - input_required holds until tasks/result sends elicitation/create (id
//     "srv-N", related-task _meta), while requests go on being answered; the
//     client's answer (result, or else error) is kept and the task moves on
//     (to completed if input_required was last).
//   - tasks/result steps the task itself every 50 ms until terminal, then
//     answers a CallToolResult with the related-task _meta: "job done" (plus
//     a text block holding the raw elicitation answer, if any), or "the job
//     broke" with isError for failed. A cancelled task gets the JSON-RPC
//     error -32603 "task was cancelled". At stdin EOF it gives up unanswered.
//   - tasks/cancel: cancelled, "cancelled by the client"; -32602 "Task
//     already terminal". tasks/list: one live task a page, "tasks-page-N".

import (
	"cmp"
	"encoding/json"
	"fmt"
	"strconv"
	"strings"
	"time"

	"github.com/mcpv/mcpv/internal/rawjson"
)

type taskConfig struct {
	statuses []string // nil: no task support
	support  string   // optional, required or forbidden
	ttl      *int64   // overrides the ttl the client asked for
	noCancel bool
	noList   bool
	poll     int // 0: no pollInterval
}

func (c taskConfig) on() bool { return c.statuses != nil }

// parseTaskOption reads task behaviour k; any other k is an error.
func parseTaskOption(c *taskConfig, k, v string) error {
	switch k {
	case "tasks":
		c.statuses = strings.Split(v, "/")
		for _, st := range c.statuses {
			switch st {
			case "working", "input_required", "completed", "failed", "cancelled", "expire":
			default:
				return fmt.Errorf("unknown task status %q", st)
			}
		}
	case "task-support":
		switch v {
		case "optional", "required", "forbidden":
			c.support = v
		default:
			return fmt.Errorf("task-support=%q: want optional, required or forbidden", v)
		}
	case "task-ttl":
		n, err := strconv.ParseInt(v, 10, 64)
		if err != nil {
			return err
		}
		c.ttl = &n
	case "no-task-cancel":
		c.noCancel = true
	case "no-task-list":
		c.noList = true
	case "poll":
		n, err := strconv.Atoi(v)
		if err != nil || n < 0 {
			return fmt.Errorf("poll=%q: want milliseconds", v)
		}
		c.poll = n
	default:
		return fmt.Errorf("unknown fake behaviour %q", k)
	}
	return nil
}

func (c taskConfig) caps() string {
	tasks := ""
	if !c.noList {
		tasks += `"list":{},`
	}
	if !c.noCancel {
		tasks += `"cancel":{},`
	}
	return `{"tools":{},"resources":{},"prompts":{},"tasks":{` + tasks + `"requests":{"tools":{"call":{}}}}}`
}

// task is the wire Task, plus the fake's bookkeeping.
type task struct {
	TaskID        string `json:"taskId"`
	Status        string `json:"status"`
	StatusMessage string `json:"statusMessage,omitempty"`
	CreatedAt     string `json:"createdAt"`
	LastUpdatedAt string `json:"lastUpdatedAt"`
	TTL           *int64 `json:"ttl"`
	PollInterval  *int   `json:"pollInterval,omitempty"`

	step   int             // index in the statuses; -1 before the first step
	gone   bool            // expired
	token  json.RawMessage // the progressToken of the tools/call
	answer json.RawMessage // the client's answer to the elicitation
	asking bool            // an elicitation awaits its answer
}

func (t *task) json() string {
	b, _ := json.Marshal(t)
	return string(b)
}

func terminal(status string) bool {
	return status == "completed" || status == "failed" || status == "cancelled"
}

func related(id string) string {
	return `{"io.modelcontextprotocol/related-task":{"taskId":` + mustString(id) + `}}`
}

func stamp() string { return time.Now().UTC().Format("2006-01-02T15:04:05.000Z07:00") }

// taskCall answers a tools/call that concerns tasks and reports whether it did.
func (s *server) taskCall(m msg) bool {
	var p struct {
		Name string `json:"name"`
		Task *struct {
			TTL *int64 `json:"ttl"`
		} `json:"task"`
		Meta struct {
			ProgressToken json.RawMessage `json:"progressToken"`
		} `json:"_meta"`
	}
	rawjson.DecodeLoose(m.Params, &p)
	switch {
	case p.Name != "job" && p.Task == nil:
		return false
	case p.Name != "job" || p.Task != nil && s.c.t.support == "forbidden":
		s.fail(m.ID, -32601, "task augmentation not supported")
	case p.Task == nil && s.c.t.support == "required":
		s.fail(m.ID, -32601, "task augmentation required")
	case p.Task == nil:
		s.result(m.ID, `{"content":[{"type":"text","text":"job done"}]}`)
	default:
		s.tmu.Lock()
		defer s.tmu.Unlock()
		now := stamp()
		t := &task{TaskID: fmt.Sprintf("task-%d", len(s.tasks)+1), Status: "working",
			CreatedAt: now, LastUpdatedAt: now, TTL: p.Task.TTL, step: -1}
		if s.c.t.ttl != nil {
			t.TTL = new(*s.c.t.ttl)
		}
		if s.c.t.poll > 0 {
			t.PollInterval = new(s.c.t.poll)
		}
		if tok := p.Meta.ProgressToken; len(tok) > 0 && string(tok) != "null" {
			t.token = tok
		}
		s.tasks = append(s.tasks, t)
		s.result(m.ID, `{"task":`+t.json()+`}`)
		s.progress(t, 1, "job started")
		t.gone = s.c.t.statuses[0] == "expire"
	}
	return true
}

// progress sends a progress notification for t, if its call asked for them.
// The caller holds tmu, as for every function that changes a task.
func (s *server) progress(t *task, n int, message string) {
	if t.token != nil {
		s.write(fmt.Sprintf(`{"jsonrpc":"2.0","method":"notifications/progress","params":{"progressToken":%s,"progress":%d,"total":2,"message":%q,"_meta":%s}}`,
			t.token, n, message, related(t.TaskID)))
	}
}

// setStatus moves t to status and announces the change.
func (s *server) setStatus(t *task, status, message string) {
	if status == "expire" {
		t.gone = true
		return
	}
	if status == t.Status {
		return
	}
	message = cmp.Or(message, map[string]string{"failed": "the job broke", "cancelled": "cancelled by the server"}[status])
	t.Status, t.StatusMessage, t.LastUpdatedAt = status, message, stamp()
	if status == "completed" || status == "failed" {
		s.progress(t, 2, "job "+status)
	}
	s.write(`{"jsonrpc":"2.0","method":"notifications/tasks/status","params":` + t.json() + `}`)
}

// advance moves t one step along the statuses, unless it is terminal or
// waits for input.
func (s *server) advance(t *task) {
	if t.gone || terminal(t.Status) || t.Status == "input_required" {
		return
	}
	if t.step+1 < len(s.c.t.statuses) {
		t.step++
	}
	s.setStatus(t, s.c.t.statuses[t.step], "")
}

// findTask looks up params.taskId; the string is the error when it fails.
func (s *server) findTask(params json.RawMessage) (*task, string) {
	var p struct {
		TaskID string `json:"taskId"`
	}
	rawjson.DecodeLoose(params, &p)
	for _, t := range s.tasks {
		if t.TaskID == p.TaskID {
			if t.gone {
				return nil, "Task not found or expired: " + p.TaskID
			}
			return t, ""
		}
	}
	return nil, "Task not found: " + p.TaskID
}

func (s *server) taskMethod(m msg) {
	switch {
	case m.Method == "tasks/result":
		s.wg.Go(func() { s.taskResult(m) })
		return
	case m.Method == "tasks/get", m.Method == "tasks/cancel" && !s.c.t.noCancel:
	case m.Method == "tasks/list" && !s.c.t.noList:
		s.taskList(m)
		return
	default:
		s.fail(m.ID, -32601, "Method not found")
		return
	}
	s.tmu.Lock()
	defer s.tmu.Unlock()
	t, problem := s.findTask(m.Params)
	switch {
	case t == nil:
	case m.Method == "tasks/get":
		s.advance(t)
		if t.gone {
			_, problem = s.findTask(m.Params)
		}
	case terminal(t.Status):
		problem = "Task already terminal"
	default:
		s.setStatus(t, "cancelled", "cancelled by the client")
	}
	if problem != "" {
		s.fail(m.ID, -32602, problem)
		return
	}
	s.result(m.ID, t.json())
}

func (s *server) taskList(m msg) {
	var p struct {
		Cursor *string `json:"cursor"`
	}
	rawjson.DecodeLoose(m.Params, &p)
	s.tmu.Lock()
	defer s.tmu.Unlock()
	var live []*task
	for _, t := range s.tasks {
		if !t.gone {
			live = append(live, t)
		}
	}
	page := 0
	if p.Cursor != nil {
		n, err := strconv.Atoi(strings.TrimPrefix(*p.Cursor, "tasks-page-"))
		if err != nil || !strings.HasPrefix(*p.Cursor, "tasks-page-") || n < 1 || n >= len(live) {
			s.fail(m.ID, -32602, "Invalid cursor")
			return
		}
		page = n
	}
	if len(live) == 0 {
		s.result(m.ID, `{"tasks":[]}`)
		return
	}
	next := ""
	if page+1 < len(live) {
		next = fmt.Sprintf(`,"nextCursor":"tasks-page-%d"`, page+1)
	}
	s.result(m.ID, `{"tasks":[`+live[page].json()+`]`+next+`}`)
}

// taskResult answers tasks/result once the task is terminal, stepping it
// every 50 ms and asking the client for the input it needs.
func (s *server) taskResult(m msg) {
	for {
		s.tmu.Lock()
		t, problem := s.findTask(m.Params)
		switch {
		case t == nil:
			s.fail(m.ID, -32602, problem)
			s.tmu.Unlock()
			return
		case terminal(t.Status):
			s.payload(m.ID, t)
			s.tmu.Unlock()
			return
		case t.Status == "input_required" && !t.asking:
			t.asking = true
			answer := s.elicit(t)
			s.tmu.Unlock()
			var r msg
			select {
			case r = <-answer:
			case <-s.done:
				return
			}
			s.tmu.Lock()
			t.asking = false
			t.answer = r.Result
			if r.Result == nil {
				t.answer = r.Error
			}
			if t.Status == "input_required" && !t.gone {
				if t.step+1 < len(s.c.t.statuses) {
					t.step++
					s.setStatus(t, s.c.t.statuses[t.step], "")
				} else {
					s.setStatus(t, "completed", "")
				}
			}
			s.tmu.Unlock()
			continue
		}
		s.tmu.Unlock()
		select {
		case <-time.After(50 * time.Millisecond):
		case <-s.done:
			return
		}
		s.tmu.Lock()
		if t, _ := s.findTask(m.Params); t != nil {
			s.advance(t)
		}
		s.tmu.Unlock()
	}
}

// elicit sends the client the elicitation t needs and returns where its
// answer will arrive.
func (s *server) elicit(t *task) chan msg {
	id := s.nextID()
	answer := make(chan msg, 1)
	s.pending[id] = answer
	s.write(fmt.Sprintf(`{"jsonrpc":"2.0","id":%s,"method":"elicitation/create","params":{"message":"Approve the job?","requestedSchema":{"type":"object","properties":{"approve":{"type":"boolean","default":true}},"required":["approve"]},"_meta":%s}}`,
		id, related(t.TaskID)))
	return answer
}

// route hands a response from the client to the tasks/result awaiting it.
func (s *server) route(r msg) {
	s.tmu.Lock()
	defer s.tmu.Unlock()
	if answer, ok := s.pending[string(r.ID)]; ok {
		delete(s.pending, string(r.ID))
		answer <- r
	}
}

// payload answers tasks/result for the terminal task t.
func (s *server) payload(id json.RawMessage, t *task) {
	switch t.Status {
	case "completed":
		content := `{"type":"text","text":"job done"}`
		if t.answer != nil {
			content += `,{"type":"text","text":` + mustString(string(t.answer)) + `}`
		}
		s.result(id, `{"content":[`+content+`],"_meta":`+related(t.TaskID)+`}`)
	case "failed":
		s.result(id, `{"content":[{"type":"text","text":"the job broke"}],"isError":true,"_meta":`+related(t.TaskID)+`}`)
	default:
		s.fail(id, -32603, "task was cancelled")
	}
}
