package etcdtest

import (
	"context"
	"testing"
	"time"

	clientv3 "go.etcd.io/etcd/client/v3"
	"go.uber.org/zap"
)

func client(t *testing.T, endpoints []string) *clientv3.Client {
	t.Helper()
	cli, err := clientv3.New(clientv3.Config{Endpoints: endpoints, DialTimeout: 5 * time.Second, Logger: zap.NewNop()})
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { cli.Close() })
	return cli
}

func get(cli *clientv3.Client, key string, timeout time.Duration) (string, error) {
	ctx, cancel := context.WithTimeout(context.Background(), timeout)
	defer cancel()
	resp, err := cli.Get(ctx, key)
	if err != nil || len(resp.Kvs) == 0 {
		return "", err
	}
	return string(resp.Kvs[0].Value), nil
}

func TestRestartKeepsData(t *testing.T) {
	s := Start(t)
	cli := client(t, s.Endpoints())
	if _, err := cli.Put(context.Background(), "k", "v"); err != nil {
		t.Fatal(err)
	}
	s.Stop()
	if _, err := get(cli, "k", 300*time.Millisecond); err == nil {
		t.Fatal("Get succeeded with etcd stopped")
	}
	s.Restart()
	got, err := get(cli, "k", 30*time.Second)
	if err != nil || got != "v" {
		t.Errorf("after Restart: Get(k) = %q, %v; want v", got, err)
	}
}

func TestProxyCutAndRestore(t *testing.T) {
	s := Start(t)
	p := NewProxy(t, s.Addr())
	if _, err := client(t, s.Endpoints()).Put(context.Background(), "k", "v"); err != nil {
		t.Fatal(err)
	}
	cli := client(t, p.Endpoints())
	if got, err := get(cli, "k", 30*time.Second); err != nil || got != "v" {
		t.Fatalf("through the proxy: %q, %v", got, err)
	}
	p.Cut()
	if _, err := get(cli, "k", 300*time.Millisecond); err == nil {
		t.Fatal("Get through a cut proxy succeeded")
	}
	p.Restore()
	if got, err := get(cli, "k", 30*time.Second); err != nil || got != "v" {
		t.Errorf("after Restore: %q, %v", got, err)
	}
}
