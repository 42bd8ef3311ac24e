package repl

import "time"

// outputLinger is how long the terminal's writes wait while a cell runs, so
// that a fast cell's echo, output and the next prompt go out as one write
// (one SSH packet, not three): the next write that does not wait (the
// prompt) takes them along, or a timer sends them after outputLinger. A
// cell that prints for longer shows its output at most this late.
var outputLinger = 2 * time.Millisecond

// echoLinger is how long the echo of a line that arrived whole waits for
// the cell's output when the cell prints nothing meanwhile: a cell slower
// than outputLinger (a thousand sessions at once make most of them so)
// still leaves as one write with its echo, value and prompt, not two. A
// pasted line's echo 20 ms late is not seen. What the cell prints goes
// out with the echo, at most echoLinger after it, or outputLinger after
// it is written once the echo went: moving the echo's timer earlier for
// the output cost a second timer Reset per cell, and a Reset to an
// earlier time wakes the runtime's sleeping netpoller (an eventfd write
// and a thread woken).
var echoLinger = 20 * time.Millisecond

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

// lingerLocked notes a write that waits and makes sure the timer runs:
// for echoLinger if the write is a whole line's echo, else outputLinger.
// A timer already armed sends this write too.
func (c *crlfWriter) lingerLocked(echo bool) {
	c.linger.held = true
	if c.linger.armed {
		return
	}
	d := outputLinger
	if echo {
		d = max(echoLinger, outputLinger)
	}
	c.linger.armed = true
	if c.linger.timer == nil {
		c.linger.timer = time.AfterFunc(d, c.sendLingering)
	} else {
		// A timer that fired meanwhile and waits for mu sends early what
		// is held; the one reset here then finds nothing (held is false).
		c.linger.timer.Reset(d)
	}
}

// disarmLocked stops the timer once what it would send went out with a
// write that did not wait: a fast cell's prompt takes its echo and output
// along, and the timer's firing 2 or 20 ms later to find nothing cost a
// goroutine and a wakeup per cell. A timer that fired meanwhile and waits
// for mu finds nothing held.
func (c *crlfWriter) disarmLocked() {
	if c.linger.armed {
		c.linger.timer.Stop()
		c.linger.armed = false
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
