package cimd

import (
	"context"
	"errors"
	"net"
	"net/netip"
	"testing"
)

func TestCheckAddress(t *testing.T) {
	for _, tc := range []struct {
		addr          string
		allowLoopback bool
		ok            bool
	}{
		{"93.184.215.14", false, true},
		{"2606:2800:21f:cb07:6820:80da:af6b:8b2c", false, true},
		{"127.0.0.1", false, false},
		{"127.0.0.1", true, true},
		{"::1", true, true},
		{"::ffff:127.0.0.1", false, false},
		{"10.1.2.3", true, false},
		{"172.16.0.1", false, false},
		{"192.168.0.1", false, false},
		{"fd00::1", false, false},
		{"169.254.169.254", true, false},
		{"fe80::1", false, false},
		{"224.0.0.1", false, false},
		{"ff02::1", false, false},
		{"0.0.0.0", true, false},
		{"::", false, false},
		{"100.64.0.1", false, false},
		{"255.255.255.255", false, false},
		{"64:ff9b::a00:1", false, false},
		{"::ffff:10.0.0.1", false, false},
	} {
		err := checkAddress(netip.MustParseAddr(tc.addr), tc.allowLoopback)
		if (err == nil) != tc.ok {
			t.Errorf("checkAddress(%s, loopback %v) = %v, want ok %v", tc.addr, tc.allowLoopback, err, tc.ok)
		}
	}
}

// The connect-time check holds by itself: a dialer with only the Control
// hook (no resolution-time check) never connects to a forbidden address,
// which is what defeats a name that resolves to a public address for the
// check and to a private one for the connection.
func TestControlRefusesAtConnect(t *testing.T) {
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	defer ln.Close()
	f := New(Config{})
	d := &net.Dialer{Control: f.control}
	c, err := d.DialContext(context.Background(), "tcp", ln.Addr().String())
	if err == nil {
		c.Close()
		t.Fatal("connected to a loopback address")
	}
	var forbidden *errForbidden
	if !errors.As(err, &forbidden) {
		t.Fatalf("err = %v, want the address check's", err)
	}
	allowed := New(Config{AllowLoopback: true})
	d = &net.Dialer{Control: allowed.control}
	c, err = d.DialContext(context.Background(), "tcp", ln.Addr().String())
	if err != nil {
		t.Fatalf("loopback allowed, yet: %v", err)
	}
	c.Close()
}
