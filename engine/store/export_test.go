package store

// Migrations exposes the migrations to the tests.
var Migrations = migrations

// CheckpointEvery exposes how many commits the store makes between two
// checkpoints of its own.
const CheckpointEvery = checkpointEvery
