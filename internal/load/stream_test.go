package load

import (
	"encoding/json"
	"os"
	"reflect"
	"strings"
	"testing"
	"time"

	"github.com/mcpv/mcpv/internal/loaddata"
	"github.com/mcpv/mcpv/internal/rawjson"
	"github.com/mcpv/mcpv/mcp/mcptest"
)

// A large row's string that a template reads by its path is streamed
// from the data file as the call is written, not read, escapes, non-ASCII
// text and all: the server gets params of the same value as those of the
// row read whole (a template that is no path, here `| .`, reads it whole),
// beside the row's other values read where they are. A long string that
// is not valid UTF-8 is read whole, as encoding/json reads it.
func TestLargeRowStreamedAsReadWhole(t *testing.T) {
	text := strings.Repeat(`lorem \"ipsum\" <&> \u00e9 中文 😀\n`, (2<<20)/40)
	rows := `{"n": 1.50, "t": "` + text + `", "o": {"k": [1, "x"]}}` + "\n" + `{"n": 2}` + "\n" +
		`{"t": "` + strings.Repeat("bad \xff", 1<<18) + `"}` + "\n"
	data, err := loaddata.Read("rows.jsonl", strings.NewReader(rows), int64(len(rows)), loaddata.InOrder, 0)
	if err != nil {
		t.Fatal(err)
	}
	sent := func(text string) [][]byte {
		ss, srv := httpServer(t, mcptest.HTTPOptions{Latency: mcptest.Latency{Delay: time.Millisecond}})
		o := op(t, "call", "x", "n~=.row.n", "t~="+text, `o~=.row["o"].k`, "k~=.iteration", "m=hi")
		cfg := Config{Plan: Plan{Concurrency: 1, Count: 3}, Ops: []Op{o}, Open: ss.open, ReadFile: os.ReadFile, Data: data}
		res, err := Run(t.Context(), cfg)
		if err != nil || res.OK != 3 {
			t.Fatalf("%v, %+v", err, res)
		}
		var out [][]byte
		for _, r := range srv.Requests() {
			if r.RPCMethod == "tools/call" {
				out = append(out, rawjson.Member(r.Body, "params"))
			}
		}
		return out
	}
	streamed, whole := sent(".row.t"), sent(".row.t | .")
	if len(streamed) != 3 || len(whole) != 3 {
		t.Fatalf("%d and %d calls", len(streamed), len(whole))
	}
	for i := range streamed {
		var a, b any
		if json.Unmarshal(streamed[i], &a) != nil || json.Unmarshal(whole[i], &b) != nil || !reflect.DeepEqual(a, b) {
			t.Errorf("call %d: streamed %.120s…, read whole %.120s…", i, streamed[i], whole[i])
		}
	}
	var first struct{ Arguments struct{ T string } }
	var want string
	if json.Unmarshal(streamed[0], &first) != nil || json.Unmarshal([]byte(`"`+text+`"`), &want) != nil || first.Arguments.T != want {
		t.Errorf("the row's text was not sent: %.200s", streamed[0])
	}

	// The large row's call streams; the small row's does not, nor the
	// row whose text is not UTF-8.
	o := op(t, "call", "x", "n~=.row.n", "t~=.row.t")
	o.args, o.kind = []byte(`{}`), "call"
	o.flat = flatTemplates(o.tmpls, o.args)
	r := &run{cfg: Config{Ops: []Op{o}, Data: data}, ctx: t.Context()}
	for k, streams := range []bool{true, false, false} {
		if _, st, err := r.params(0, int64(k), 0); err != nil || (st != nil) != streams {
			t.Errorf("row %d: streamed %v, %v; want %v", k+1, st != nil, err, streams)
		}
	}
}
