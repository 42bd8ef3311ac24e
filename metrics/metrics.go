// Package metrics exports the host's Prometheus metrics (logins, sessions,
// cells, restores, workers, artifacts, UDFs, the Go runtime's own) and its
// health endpoints, served on --metrics-listen.
package metrics

import (
	"context"
	"errors"
	"net"
	"net/http"
	"strings"
	"sync/atomic"
	"time"

	"github.com/prometheus/client_golang/prometheus"
	"github.com/prometheus/client_golang/prometheus/collectors"
	"github.com/prometheus/client_golang/prometheus/promhttp"
	"github.com/replhost/replhost/repl"
)

// Sources are the gauges the host reads when scraped; a nil field is not
// exported.
type Sources struct {
	// Sessions counts sessions by state (repl.Manager.Counts).
	Sessions func() map[repl.State]int
	// IdleWorkers is the size of the worker pool (sandbox.Pool.Idle).
	IdleWorkers func() int
}

// Metrics holds the host's collectors. Record feeds it the host's events.
type Metrics struct {
	reg   *prometheus.Registry
	ready atomic.Bool

	logins        prometheus.Counter
	refusals      *prometheus.CounterVec
	sessionEvents *prometheus.CounterVec
	cells         *prometheus.CounterVec
	cellDuration  prometheus.Histogram
	replayed      prometheus.Counter
	restores      *prometheus.CounterVec
	restoreTime   prometheus.Histogram
	crashes       *prometheus.CounterVec
	workerStarts  *prometheus.CounterVec
	workerWait    prometheus.Histogram
	evalCalls     *prometheus.CounterVec
	artifacts     *prometheus.CounterVec
	artifactBytes prometheus.Counter
	udfCalls      prometheus.Counter
	udfRecords    *prometheus.CounterVec
}

// latency buckets from 100 µs to ~26 s.
var latency = prometheus.ExponentialBuckets(0.0001, 4, 10)

// New registers the collectors.
func New(src Sources) *Metrics {
	m := &Metrics{
		reg:    prometheus.NewRegistry(),
		logins: counter("replhost_logins_total", "Logins accepted."),
		refusals: counterVec("replhost_login_refusals_total",
			"Logins and connections refused, by reason.", "reason"),
		sessionEvents: counterVec("replhost_session_events_total",
			"Session lifecycle events: created, attached, detached, killed, evicted, ended, crashed.", "event"),
		cells: counterVec("replhost_cells_total",
			"Cells users ran (replays on restore not included), by outcome: ok, error, exit, interrupted, timeout, crashed.", "outcome"),
		cellDuration: prometheus.NewHistogram(prometheus.HistogramOpts{
			Name: "replhost_cell_duration_seconds", Help: "Time to run a user's cell.", Buckets: latency}),
		replayed: counter("replhost_replayed_cells_total", "Journal cells run again to restore sessions."),
		restores: counterVec("replhost_restores_total",
			"Sessions restored from their journal, by outcome of the replay.", "outcome"),
		restoreTime: prometheus.NewHistogram(prometheus.HistogramOpts{
			Name: "replhost_restore_duration_seconds", Help: "Time to replay a session's journal.", Buckets: latency}),
		crashes: counterVec("replhost_worker_crashes_total",
			"Interpreters that died or were killed under a cell, by reason: memory_cap, disk_quota, interrupt, timeout, protocol, runtime.", "reason"),
		workerStarts: counterVec("replhost_worker_starts_total",
			"Interpreters started for sessions, by result: ok, error.", "result"),
		workerWait: prometheus.NewHistogram(prometheus.HistogramOpts{
			Name: "replhost_worker_wait_seconds", Help: "Time a session waited for its interpreter (a pool worker, or one started then).", Buckets: latency}),
		evalCalls: counterVec("replhost_evaluator_calls_total",
			"Calls into interpreters, by call: eval, replay (one per restore: the whole journal), udf.", "call"),
		artifacts: counterVec("replhost_artifacts_total",
			"Artifacts added and removed, by change.", "change"),
		artifactBytes: counter("replhost_artifact_bytes_total", "Bytes of artifacts added."),
		udfCalls:      counter("replhost_udf_calls_total", "udf call commands run."),
		udfRecords: counterVec("replhost_udf_records_total",
			"UDF input records, by result: ok, failed.", "result"),
	}
	m.reg.MustRegister(m.logins, m.refusals, m.sessionEvents, m.cells, m.cellDuration, m.replayed,
		m.restores, m.restoreTime, m.crashes, m.workerStarts, m.workerWait, m.evalCalls,
		m.artifacts, m.artifactBytes, m.udfCalls, m.udfRecords,
		collectors.NewGoCollector(), collectors.NewProcessCollector(collectors.ProcessCollectorOpts{}))
	if src.Sessions != nil {
		for _, st := range []repl.State{repl.StateLive, repl.StateDetached, repl.StateRestorable} {
			m.reg.MustRegister(prometheus.NewGaugeFunc(prometheus.GaugeOpts{
				Name: "replhost_sessions", Help: "Sessions by state.",
				ConstLabels: prometheus.Labels{"state": string(st)},
			}, func() float64 { return float64(src.Sessions()[st]) }))
		}
	}
	if src.IdleWorkers != nil {
		m.reg.MustRegister(prometheus.NewGaugeFunc(prometheus.GaugeOpts{
			Name: "replhost_pool_idle_workers", Help: "Started workers waiting for a session.",
		}, func() float64 { return float64(src.IdleWorkers()) }))
	}
	return m
}

func counter(name, help string) prometheus.Counter {
	return prometheus.NewCounter(prometheus.CounterOpts{Name: name, Help: help})
}

func counterVec(name, help, label string) *prometheus.CounterVec {
	return prometheus.NewCounterVec(prometheus.CounterOpts{Name: name, Help: help}, []string{label})
}

// Record counts one host event.
func (m *Metrics) Record(e repl.Event) {
	switch e.Kind {
	case repl.EventLogin:
		m.logins.Inc()
	case repl.EventLoginRefused:
		m.refusals.WithLabelValues(refusalLabel(e.Reason)).Inc()
	case repl.EventSessionCreated, repl.EventSessionAttached, repl.EventSessionDetached,
		repl.EventSessionKilled, repl.EventSessionEvicted, repl.EventSessionEnded:
		m.sessionEvents.WithLabelValues(strings.TrimPrefix(string(e.Kind), "session-")).Inc()
	case repl.EventSessionCrashed:
		m.sessionEvents.WithLabelValues("crashed").Inc()
		m.crashes.WithLabelValues(CrashLabel(e.Reason)).Inc()
	case repl.EventCell:
		m.cells.WithLabelValues(e.Outcome).Inc()
		m.cellDuration.Observe(e.Duration.Seconds())
	case repl.EventSessionRestored:
		m.restores.WithLabelValues(e.Outcome).Inc()
		m.restoreTime.Observe(e.Duration.Seconds())
		m.replayed.Add(float64(e.Cells))
	case repl.EventArtifactAdded:
		m.artifacts.WithLabelValues("added").Inc()
		m.artifactBytes.Add(float64(e.Size))
	case repl.EventArtifactRemoved:
		m.artifacts.WithLabelValues("removed").Inc()
	case repl.EventUDFCall:
		m.udfCalls.Inc()
		m.udfRecords.WithLabelValues("ok").Add(float64(e.Records - e.Failed))
		m.udfRecords.WithLabelValues("failed").Add(float64(e.Failed))
	}
}

// CrashLabel maps a crash reason (free text, with sizes and messages in
// it) to a label of few values.
func CrashLabel(reason string) string {
	return labelOf(reason, "runtime", []labelRule{
		{"memory cap", "memory_cap"},
		{"disk quota", "disk_quota"},
		{"interrupted", "interrupt"},
		{"timed out", "timeout"},
		{"not ready", "start"},
		{"protocol", "protocol"},
	})
}

// labelRule gives label to a reason that holds has.
type labelRule struct{ has, label string }

// labelOf is the label of the first rule whose text reason holds, else
// fallback: free text in, one of a fixed few labels out.
func labelOf(reason, fallback string, rules []labelRule) string {
	for _, r := range rules {
		if strings.Contains(reason, r.has) {
			return r.label
		}
	}
	return fallback
}

// refusalLabel maps a refusal reason (free text with line numbers,
// addresses and times, partly chosen by the client) to a label of a fixed
// few values, so that nobody can grow the metric's series.
func refusalLabel(reason string) string {
	return labelOf(reason, "other", []labelRule{
		{"penalty", "penalty"},
		{"per-source-max-startups", "per_source_max_startups"},
		{"max-startups", "max_startups"},
		{"too many unauthenticated", "max_startups"},
		{"MaxAuthTries", "max_auth_tries"},
		{"grace time", "login_grace_time"},
		{"no such user", "no_such_user"},
		{"invalid user name", "no_such_user"},
		{"expired", "key_expired"},
		{"from=", "from_mismatch"},
		{"source-address", "from_mismatch"},
		{"certificate", "certificate"},
		{"key not", "key_not_authorized"},
	})
}

// SetReady marks the host ready (it serves SSH) or not (starting, shutting
// down): /readyz answers 200 only when ready.
func (m *Metrics) SetReady(ready bool) { m.ready.Store(ready) }

// Handler serves /metrics, /healthz (the process answers) and /readyz
// (the host accepts logins).
func (m *Metrics) Handler() http.Handler {
	mux := http.NewServeMux()
	mux.Handle("/metrics", promhttp.HandlerFor(m.reg, promhttp.HandlerOpts{}))
	mux.HandleFunc("/healthz", func(w http.ResponseWriter, _ *http.Request) {
		w.Write([]byte("ok\n"))
	})
	mux.HandleFunc("/readyz", func(w http.ResponseWriter, _ *http.Request) {
		if !m.ready.Load() {
			http.Error(w, "not ready", http.StatusServiceUnavailable)
			return
		}
		w.Write([]byte("ready\n"))
	})
	return mux
}

// Serve serves Handler on l until ctx ends.
func (m *Metrics) Serve(ctx context.Context, l net.Listener) error {
	srv := &http.Server{Handler: m.Handler(), ReadHeaderTimeout: 5 * time.Second}
	go func() {
		<-ctx.Done()
		sctx, cancel := context.WithTimeout(context.Background(), time.Second)
		defer cancel()
		srv.Shutdown(sctx)
	}()
	if err := srv.Serve(l); !errors.Is(err, http.ErrServerClosed) {
		return err
	}
	return nil
}
