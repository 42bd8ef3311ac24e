package admin

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"net"
	"net/http"
	"net/url"
	"time"
)

// ErrNoHost is returned when no host serves the root's admin socket.
var ErrNoHost = errors.New("no host is running on this root")

// Client talks to the admin socket of a running host.
type Client struct {
	http *http.Client
}

// Dial returns a client of root's admin socket, or ErrNoHost.
func Dial(root string) (*Client, error) {
	path := SocketPath(root)
	c, err := dialUnix(path, 2*time.Second)
	if err != nil {
		return nil, fmt.Errorf("%w (%s: %v)", ErrNoHost, path, err)
	}
	c.Close()
	return &Client{http: &http.Client{
		Timeout: 30 * time.Second,
		Transport: &http.Transport{DialContext: func(ctx context.Context, _, _ string) (net.Conn, error) {
			return dialUnix(path, 5*time.Second)
		}},
	}}, nil
}

func (c *Client) do(method, path string, out any) error {
	req, err := http.NewRequest(method, "http://replhost"+path, nil)
	if err != nil {
		return err
	}
	resp, err := c.http.Do(req)
	if err != nil {
		return fmt.Errorf("admin socket: %w", err)
	}
	defer resp.Body.Close()
	body, err := io.ReadAll(io.LimitReader(resp.Body, 64<<20))
	if err != nil {
		return fmt.Errorf("admin socket: %w", err)
	}
	if resp.StatusCode != http.StatusOK {
		var f failure
		if json.Unmarshal(body, &f) == nil && f.Error != "" {
			return errors.New(f.Error)
		}
		return fmt.Errorf("admin socket: %s", resp.Status)
	}
	return json.Unmarshal(body, out)
}

// Sessions lists every session of the host.
func (c *Client) Sessions() ([]Session, error) {
	var list []Session
	return list, c.do("GET", "/sessions", &list)
}

// Kill kills session id, whoever owns it.
func (c *Client) Kill(id string) error {
	var k killed
	return c.do("POST", "/sessions/"+url.PathEscape(id)+"/kill", &k)
}

// KillUser kills every session of user and returns how many.
func (c *Client) KillUser(user string) (int, error) {
	var k killed
	err := c.do("POST", "/users/"+url.PathEscape(user)+"/kill", &k)
	return k.Killed, err
}

// Drain marks a cluster node draining and returns how many sessions it
// handed off at once (the detached ones).
func (c *Client) Drain() (int, error) {
	var d drained
	err := c.do("POST", "/drain", &d)
	return d.HandedOff, err
}
