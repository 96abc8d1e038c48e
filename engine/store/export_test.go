package store

// Migrations exposes the migrations to the tests.
var Migrations = migrations
