package sandbox

import (
	"bytes"
	"errors"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"strconv"
	"testing"
)

// fuzzRequests are the requests a fuzzed stream is read against, chosen
// by its first byte: what the host would have in flight.
var fuzzRequests = []struct {
	reply      byte
	maxRecords int
}{
	{0, 0}, // none
	{msgResult, 0},
	{msgResult, 3}, // a replay of 3 cells
	{msgUDFDone, -1},
	{msgUDFEntries, 0},
	{msgInitDone, 0},
	{msgWarmDone, 0},
	{msgStatsReply, 0},
}

// decodeStream reads a worker's stream as the host does, with the request
// chosen by sel in flight and one Complete of "fmt.P" asked, and checks
// what the decoder lets through. It returns the events.
func decodeStream(t testing.TB, sel byte, stream []byte) []event {
	d := newHostDecoder(bytes.NewReader(stream))
	req := fuzzRequests[int(sel)%len(fuzzRequests)]
	if req.reply != 0 {
		d.begin(req.reply, req.maxRecords)
		if req.reply == msgUDFDone {
			d.sentUDFData()
		}
	}
	d.beginComplete("fmt.P")
	var evs []event
	for {
		ev, ok, err := d.next()
		if err != nil {
			if !errors.Is(err, ErrProtocol) && !errors.Is(err, io.EOF) && !errors.Is(err, io.ErrUnexpectedEOF) {
				t.Fatalf("error %v is neither a protocol error nor the end", err)
			}
			return evs
		}
		if !ok {
			continue
		}
		evs = append(evs, ev)
		switch ev.typ {
		case msgResult, msgUDFDone:
			r := ev.res
			if r.Records < 0 || r.Failed < 0 || r.Failed > r.Records || len(r.Msg) > maxResultText ||
				(req.maxRecords >= 0 && r.Records > req.maxRecords) || r.Line < 0 || r.Col < 0 {
				t.Fatalf("result out of bounds let through: %+v", r)
			}
		case msgCompletions:
			if len(ev.cands) > maxCompletions {
				t.Fatalf("%d completions let through", len(ev.cands))
			}
		case msgUDFEntries:
			if len(ev.entries) > maxUDFEntries {
				t.Fatalf("%d udf entries let through", len(ev.entries))
			}
		case msgStatsReply:
			if ev.stats.IdleReleases < 0 || ev.stats.SharedTables < 0 {
				t.Fatalf("stats out of bounds let through: %+v", ev.stats)
			}
		case msgStdout, msgStderr, msgUDFOut, msgUDFErr:
			if len(ev.out) > chunkBytes {
				t.Fatalf("output frame of %d bytes let through", len(ev.out))
			}
		}
	}
}

// FuzzHostDecode feeds the host's decoder any bytes as a worker's stream:
// it never panics, never allocates more than a frame's limit, and lets no
// value out of bounds through. Seeds are in testdata/fuzz/FuzzHostDecode.
func FuzzHostDecode(f *testing.F) {
	for _, s := range fuzzSeeds() {
		f.Add(s)
	}
	f.Fuzz(func(t *testing.T, data []byte) {
		if len(data) == 0 {
			return
		}
		decodeStream(t, data[0], data[1:])
	})
}

// fuzzSeeds are valid streams of an honest worker, plus a few broken ones.
func fuzzSeeds() [][]byte {
	hello := mustJSON(helloMsg{Protocol: protocolVersion, Build: "seed"})
	stream := func(sel byte, frames ...frame) []byte {
		var b bytes.Buffer
		b.WriteByte(sel)
		fw := &frameWriter{w: &b}
		fw.send(msgReady, 0, hello)
		for _, f := range frames {
			fw.send(f.typ, f.id, f.payload)
		}
		return b.Bytes()
	}
	return [][]byte{
		stream(1, frame{msgStdout, 1, []byte("hi\n")}, frame{msgResult, 1, mustJSON(resultMsg{Kind: resOK})}),
		stream(1, frame{msgResult, 1, mustJSON(resultMsg{Kind: resEval, Line: 1, Col: 2, Msg: "undefined: x"})}),
		stream(2, frame{msgResult, 1, mustJSON(resultMsg{Kind: resEval, Records: 2, Msg: "boom"})}),
		stream(2, frame{msgResult, 1, mustJSON(resultMsg{Kind: resOK, Records: 3})}),
		stream(3, frame{msgUDFAck, 1, nil}, frame{msgUDFOut, 1, []byte("A\n")}, frame{msgUDFDone, 1, mustJSON(resultMsg{Kind: resOK, Records: 1})}),
		stream(4, frame{msgUDFEntries, 1, mustJSON([]map[string]string{{"Name": "up", "Signature": "func(string) string"}})}),
		stream(5, frame{msgInitDone, 1, nil}),
		stream(6, frame{msgWarmDone, 1, nil}),
		stream(0, frame{msgCompletions, 1, []byte("fmt.P\x00fmt.Printf\x00fmt.Println")}),
		stream(2, frame{msgResult, 1, []byte(`{"Kind":"ok","Records":-1}`)}),
		stream(1, frame{msgResult, 2, mustJSON(resultMsg{Kind: resOK})}),
		stream(0, frame{'Y', 0, []byte("x")}),
		append(stream(1), msgStdout, 0, 0, 0, 1, 0xff, 0xff, 0xff, 0xff),
		stream(7, frame{msgStatsReply, 1, mustJSON(statsMsg{IdleReleases: 2})}),
		stream(7, frame{msgStatsReply, 1, []byte(`{"IdleReleases":-1}`)}),
	}
}

// TestFuzzSeedsAreCurrent keeps testdata/fuzz/FuzzHostDecode equal to
// fuzzSeeds (REPLHOST_WRITE_SEEDS=1 rewrites it) and checks what an honest
// stream decodes to.
func TestFuzzSeedsAreCurrent(t *testing.T) {
	dir := filepath.Join("testdata", "fuzz", "FuzzHostDecode")
	seeds := fuzzSeeds()
	for i, s := range seeds {
		name := filepath.Join(dir, fmt.Sprintf("seed-%02d", i))
		want := "go test fuzz v1\n[]byte(" + strconv.Quote(string(s)) + ")\n"
		if os.Getenv("REPLHOST_WRITE_SEEDS") != "" {
			os.MkdirAll(dir, 0o755)
			if err := os.WriteFile(name, []byte(want), 0o644); err != nil {
				t.Fatal(err)
			}
		}
		if got, err := os.ReadFile(name); err != nil || string(got) != want {
			t.Errorf("%s is not seed %d (REPLHOST_WRITE_SEEDS=1 rewrites it): %v", name, i, err)
		}
	}
	evs := decodeStream(t, seeds[0][0], seeds[0][1:])
	if len(evs) != 3 || string(evs[1].out) != "hi\n" || evs[2].res.Kind != resOK {
		t.Errorf("honest eval stream decoded to %+v", evs)
	}
	evs = decodeStream(t, seeds[8][0], seeds[8][1:])
	if len(evs) != 2 || fmt.Sprint(evs[1].cands) != "[fmt.Printf fmt.Println]" {
		t.Errorf("honest completion stream decoded to %+v", evs)
	}
	evs = decodeStream(t, seeds[13][0], seeds[13][1:])
	if len(evs) != 2 || evs[1].stats.IdleReleases != 2 {
		t.Errorf("honest stats stream decoded to %+v", evs)
	}
	if evs = decodeStream(t, seeds[14][0], seeds[14][1:]); len(evs) != 1 {
		t.Errorf("stats of -1 releases decoded to %+v; want the handshake only", evs)
	}
}
