"""The faces a user sees: the command line and the reporters over the event stream."""
