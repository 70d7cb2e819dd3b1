//! Model doubles: scripted local model servers speaking each client wire protocol.
