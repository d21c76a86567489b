// The loopback server (TestServer, ResponseWriter, ServerRequest) and Gate live in the
// TestSupport target, shared with the other test targets. Re-exported here once, so that every
// file of this target sees them as it did when they were part of the target.
@_exported import TestSupport
