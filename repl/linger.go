package repl

import "time"

// outputLinger is how long the terminal's writes wait while a cell runs, so
// that a fast cell's echo, output and the next prompt go out as one write
// (one SSH packet, not three): the next write that does not wait (the
// prompt) takes them along, or a timer sends them after outputLinger. A
// cell that prints for longer shows its output at most this late.
var outputLinger = 2 * time.Millisecond

// lingerState is the crlfWriter's lingering (guarded by its mu).
type lingerState struct {
	on    bool        // writes wait (a cell runs, or its line was just echoed)
	held  bool        // what waits in held includes lingering writes
	timer *time.Timer // sends them; nil until first needed
	armed bool        // timer is set
}

// setLinger starts or ends lingering. Ending it sends nothing: the next
// write does, or the timer.
func (c *crlfWriter) setLinger(on bool) {
	c.mu.Lock()
	defer c.mu.Unlock()
	c.linger.on = on && outputLinger > 0
}

// lingerLocked notes a write that waits and makes sure the timer runs.
func (c *crlfWriter) lingerLocked() {
	c.linger.held = true
	if c.linger.armed {
		return
	}
	c.linger.armed = true
	if c.linger.timer == nil {
		c.linger.timer = time.AfterFunc(outputLinger, c.sendLingering)
	} else {
		c.linger.timer.Reset(outputLinger)
	}
}

// sendLingering sends the writes that waited, if nothing sent them yet.
func (c *crlfWriter) sendLingering() {
	c.mu.Lock()
	defer c.mu.Unlock()
	c.linger.armed = false
	if !c.linger.held {
		return
	}
	c.linger.held = false
	c.w.Write(c.held.Bytes())
	c.held.Reset()
	c.clean = 0
}

// stopLinger ends lingering and sends what waits now: the terminal goes.
func (c *crlfWriter) stopLinger() {
	c.mu.Lock()
	c.linger.on = false
	if c.linger.timer != nil {
		c.linger.timer.Stop()
		c.linger.armed = false
	}
	c.mu.Unlock()
	c.sendLingering()
}
