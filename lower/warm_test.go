package lower

import "testing"

func TestWarm(t *testing.T) {
	if err := Warm(); err != nil {
		t.Fatal(err)
	}
	if err := Warm(); err != nil {
		t.Fatalf("second call: %v", err)
	}
	if _, err := NewSession(Options{}).Lower("import \"fmt\"\nfor i := range 2 { fmt.Println(min(i, 1)) }"); err != nil {
		t.Errorf("lower after Warm: %v", err)
	}
}
