package sandbox

import (
	"cmp"
	"context"
	"sync"
	"time"
)

// DefaultPoolSize is the number of idle workers a Pool keeps when
// PoolOptions.Size is 0.
const DefaultPoolSize = 2

// DefaultMaxPoolSize is the most idle workers a Pool keeps, when logins
// come faster than its workers start and PoolOptions.MaxSize is 0.
const DefaultMaxPoolSize = 8

// poolDecay is how long a pool grown by demand waits without a login that
// found it empty before it keeps one idle worker less (and again after
// each step): after a burst it is back to its size within a minute.
const poolDecay = 5 * time.Second

// retryStart is how long the pool waits after a worker failed to start.
const retryStart = time.Second

// PoolOptions configure a Pool; the zero value keeps two idle workers of
// this executable.
type PoolOptions struct {
	// Size is the number of idle workers kept started; 0 means
	// DefaultPoolSize, negative none (Get then starts each worker).
	Size int
	// MaxSize bounds the idle workers kept when logins find the pool
	// empty: each such login doubles the number kept, up to MaxSize, and
	// it shrinks back to Size by one every poolDecay without one. 0 means
	// DefaultMaxPoolSize (at least Size); below Size, Size.
	MaxSize int
	// Executable, Args and StartTimeout are those of WorkerOptions; they
	// apply to every worker of the pool.
	Executable   string
	Args         []string
	StartTimeout time.Duration
	// MaxThreads, Disk and Users are those of WorkerOptions, for every
	// worker of the pool. Idle workers, which run no code, are held by a
	// cgroup of DefaultMemory and DefaultMaxThreads.
	MaxThreads int
	Disk       int64
	Users      *WorkerUsers

	decay time.Duration // poolDecay if 0 (tests shorten it)
}

// Pool keeps a few workers started and idle, so that a new session does not
// wait for a process to start. An idle worker runs no code and is not yet
// confined: Landlock restricts a process from the moment it asks, so the
// worker applies it, with its working directory and memory cap, when Get
// tells it its session. Safe for concurrent use.
type Pool struct {
	opts     PoolOptions
	min, max int           // bounds of target
	idle     chan *Worker  // started, unconfigured workers; capacity max
	wake     chan struct{} // a worker was taken: refill
	stop     chan struct{} // closed by Close
	done     chan struct{} // closed when the refill loop ended

	ctx    context.Context // canceled by Close: ends a start in progress
	cancel context.CancelFunc
	once   sync.Once

	mu       sync.Mutex // guards target and lastMiss
	target   int        // idle workers to keep now, in [min, max]
	lastMiss time.Time  // when a Get last found no idle worker
	decay    time.Duration
}

// NewPool returns a pool and starts filling it in the background.
func NewPool(opts PoolOptions) *Pool {
	size := opts.Size
	switch {
	case size == 0:
		size = DefaultPoolSize
	case size < 0:
		size = 0
	}
	most := opts.MaxSize
	switch {
	case size == 0:
		most = 0
	case most == 0:
		most = max(size, DefaultMaxPoolSize)
	case most < size:
		most = size
	}
	ctx, cancel := context.WithCancel(context.Background())
	p := &Pool{
		opts:   opts,
		min:    size,
		max:    most,
		target: size,
		decay:  cmp.Or(opts.decay, poolDecay),
		idle:   make(chan *Worker, most),
		wake:   make(chan struct{}, 1),
		stop:   make(chan struct{}),
		done:   make(chan struct{}),
		ctx:    ctx,
		cancel: cancel,
	}
	go p.refill()
	return p
}

// missed is a Get that found no idle worker: logins come faster than the
// pool refills, so it keeps twice as many (up to max).
func (p *Pool) missed() {
	p.mu.Lock()
	defer p.mu.Unlock()
	p.lastMiss = time.Now()
	p.target = min(p.max, max(2*p.target, 1))
}

// size is the number of idle workers to keep now; a pool grown by demand
// gives one back per decay without a miss.
func (p *Pool) size() int {
	p.mu.Lock()
	defer p.mu.Unlock()
	if p.target > p.min && time.Since(p.lastMiss) >= p.decay {
		p.target--
		p.lastMiss = time.Now() // the next step is a decay later
	}
	return p.target
}

// grown reports whether the pool keeps more than its size (then refill
// looks again after a decay).
func (p *Pool) grown() bool {
	p.mu.Lock()
	defer p.mu.Unlock()
	return p.target > p.min
}

// Get returns a worker for the session of opts (its Executable, Args and
// StartTimeout are the pool's): an idle one if there is one, else one
// started now. The worker is the caller's: Close it when the session ends.
func (p *Pool) Get(ctx context.Context, opts WorkerOptions) (*Worker, error) {
	opts.Executable, opts.Args, opts.StartTimeout = p.opts.Executable, p.opts.Args, p.opts.StartTimeout
	opts.MaxThreads, opts.Users = p.opts.MaxThreads, p.opts.Users
	if opts.Disk == 0 {
		opts.Disk = p.opts.Disk // a session's own quota (a user's override) wins
	}
	// Refill after this session is ready: a start at the same time would
	// compete with it for the CPU.
	defer p.kick()
	for {
		var w *Worker
		select {
		case w = <-p.idle:
		default:
			if p.max > 0 {
				p.missed()
			}
			return StartWorker(ctx, opts)
		}
		if w.usable() != nil { // died while idle
			w.Close()
			continue
		}
		return configureHedged(ctx, w, opts)
	}
}

// poolHedge is how long Get waits for an idle worker's init before it
// starts a new worker beside it: the first ready serves the session.
const poolHedge = 100 * time.Millisecond

// configureHedged gives the idle worker w its session. If w has not
// answered within poolHedge (stopped, starved), a new worker is started
// beside it and the first one configured wins; the other is closed. So a
// login never waits on a stuck idle worker, only on a new start.
func configureHedged(ctx context.Context, w *Worker, opts WorkerOptions) (*Worker, error) {
	idle := make(chan error, 1)
	go func() { idle <- w.configure(ctx, opts, poolInitWait) }()
	t := time.NewTimer(poolHedge)
	defer t.Stop()
	select {
	case err := <-idle:
		return idleResult(ctx, w, err, func() (*Worker, error) { return StartWorker(ctx, opts) })
	case <-t.C:
	}
	type started struct {
		w   *Worker
		err error
	}
	freshCtx, cancel := context.WithCancel(ctx)
	fresh := make(chan started, 1)
	go func() {
		fw, err := StartWorker(freshCtx, opts)
		fresh <- started{fw, err}
	}()
	select {
	case err := <-idle:
		if err == nil {
			cancel()
			go func() { // the new worker lost: it is not needed
				if s := <-fresh; s.w != nil {
					s.w.Close()
				}
			}()
			return w, nil
		}
		defer cancel()
		return idleResult(ctx, w, err, func() (*Worker, error) { s := <-fresh; return s.w, s.err })
	case s := <-fresh:
		cancel()
		if s.err == nil {
			w.kill("init not answered before a new worker was ready")
			go func() { <-idle; w.Close() }()
			return s.w, nil
		}
		err := <-idle
		if err == nil {
			return w, nil
		}
		w.Close()
		return nil, err
	}
}

// idleResult is Get's outcome when the idle worker's configure ended with
// err: the worker, or another one if the fault was the idle worker's.
func idleResult(ctx context.Context, w *Worker, err error, other func() (*Worker, error)) (*Worker, error) {
	if err == nil {
		return w, nil
	}
	ended := w.usable() != nil
	w.Close()
	if ended && ctx.Err() == nil {
		// Stopped, starved or broken while idle: the session takes
		// another; the fault was the worker's.
		return other()
	}
	return nil, err
}

func (p *Pool) kick() {
	select {
	case p.wake <- struct{}{}:
	default:
	}
}

// refill keeps size() workers idle until Close; workers past it (the pool
// shrinking after a burst) are ended.
func (p *Pool) refill() {
	defer close(p.done)
	for {
		for len(p.idle) < p.size() {
			w, err := spawnWorker(p.ctx, p.opts.Executable, p.opts.Args, p.opts.StartTimeout)
			if err == nil {
				if err = w.warm(p.ctx, startTimeout(p.opts.StartTimeout)); err != nil {
					w.Close()
				}
			}
			if err != nil {
				select {
				case <-time.After(retryStart):
					continue
				case <-p.stop:
					return
				}
			}
			select {
			case p.idle <- w:
			case <-p.stop:
				w.Close()
				return
			}
		}
		for len(p.idle) > p.size() {
			select {
			case w := <-p.idle:
				w.Close()
			default:
			}
		}
		var decay <-chan time.Time
		var t *time.Timer
		if p.grown() {
			t = time.NewTimer(p.decay)
			decay = t.C
		}
		select {
		case <-p.wake:
		case <-decay:
		case <-p.stop:
			return
		}
		if t != nil {
			t.Stop()
		}
	}
}

// Close ends the idle workers and stops the refill; the workers handed out
// are not affected. Safe to call twice.
func (p *Pool) Close() error {
	p.once.Do(func() {
		close(p.stop)
		p.cancel()
		<-p.done
		for {
			select {
			case w := <-p.idle:
				w.Close()
			default:
				return
			}
		}
	})
	<-p.done
	return nil
}

// Idle is the number of started workers waiting for a session, for metrics.
func (p *Pool) Idle() int { return len(p.idle) }
