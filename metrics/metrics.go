// Package metrics exports the host's Prometheus metrics: sessions by state,
// cells by outcome and duration, interpreter crashes, and the Go runtime's
// own, served on --metrics-listen.
package metrics

import (
	"context"
	"errors"
	"net"
	"net/http"
	"time"

	"github.com/prometheus/client_golang/prometheus"
	"github.com/prometheus/client_golang/prometheus/collectors"
	"github.com/prometheus/client_golang/prometheus/promhttp"
	"github.com/replhost/replhost/repl"
)

// Metrics holds the host's collectors.
type Metrics struct {
	reg      *prometheus.Registry
	cells    *prometheus.CounterVec
	duration prometheus.Histogram
}

// New registers the collectors; sessions reports the session counts by
// state (repl.Manager.Counts).
func New(sessions func() map[repl.State]int) *Metrics {
	reg := prometheus.NewRegistry()
	m := &Metrics{
		reg: reg,
		cells: prometheus.NewCounterVec(prometheus.CounterOpts{
			Name: "replhost_cells_total",
			Help: "Cells evaluated, by outcome: ok, error, exit, interrupted, timeout, crashed.",
		}, []string{"outcome"}),
		duration: prometheus.NewHistogram(prometheus.HistogramOpts{
			Name:    "replhost_cell_duration_seconds",
			Help:    "Time to evaluate a cell.",
			Buckets: prometheus.ExponentialBuckets(0.0001, 4, 10),
		}),
	}
	reg.MustRegister(m.cells, m.duration,
		collectors.NewGoCollector(), collectors.NewProcessCollector(collectors.ProcessCollectorOpts{}))
	for _, st := range []repl.State{repl.StateLive, repl.StateDetached, repl.StateRestorable} {
		reg.MustRegister(prometheus.NewGaugeFunc(prometheus.GaugeOpts{
			Name:        "replhost_sessions",
			Help:        "Sessions by state.",
			ConstLabels: prometheus.Labels{"state": string(st)},
		}, func() float64 { return float64(sessions()[st]) }))
	}
	return m
}

// Observe records one cell's outcome and duration.
func (m *Metrics) Observe(outcome string, d time.Duration) {
	m.cells.WithLabelValues(outcome).Inc()
	m.duration.Observe(d.Seconds())
}

// Serve serves /metrics on l until ctx ends.
func (m *Metrics) Serve(ctx context.Context, l net.Listener) error {
	mux := http.NewServeMux()
	mux.Handle("/metrics", promhttp.HandlerFor(m.reg, promhttp.HandlerOpts{}))
	srv := &http.Server{Handler: mux, ReadHeaderTimeout: 5 * time.Second}
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
