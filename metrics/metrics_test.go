package metrics

import (
	"context"
	"io"
	"net"
	"net/http"
	"strings"
	"testing"

	"github.com/replhost/replhost/repl"
	"github.com/replhost/replhost/sandbox"
)

func TestMetricsCountCellsAndSessions(t *testing.T) {
	m := New(func() map[repl.State]int { return map[repl.State]int{repl.StateLive: 2, repl.StateDetached: 1} })
	newEval := m.Count(repl.InProcess(sandbox.NewAllowlist(nil)))
	ev, err := newEval(context.Background(), repl.EvaluatorSpec{Dir: t.TempDir()})
	if err != nil {
		t.Fatal(err)
	}
	defer ev.Close()
	for _, cell := range []string{"1+1", "nope", `panic("x")`, "2"} {
		ev.Eval(context.Background(), cell, false)
	}
	if _, ok := ev.(repl.UDFHost); !ok {
		t.Error("the counted evaluator lost its UDFs")
	}
	l, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	ctx, cancel := context.WithCancel(context.Background())
	defer cancel()
	go m.Serve(ctx, l)
	resp, err := http.Get("http://" + l.Addr().String() + "/metrics")
	if err != nil {
		t.Fatal(err)
	}
	body, _ := io.ReadAll(resp.Body)
	resp.Body.Close()
	for _, want := range []string{
		`replhost_cells_total{outcome="ok"} 2`,
		`replhost_cells_total{outcome="error"} 2`,
		`replhost_sessions{state="live"} 2`,
		`replhost_sessions{state="detached"} 1`,
		`replhost_cell_duration_seconds_count 4`,
	} {
		if !strings.Contains(string(body), want) {
			t.Errorf("metrics lack %q", want)
		}
	}
}
