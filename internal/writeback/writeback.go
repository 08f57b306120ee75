// Package writeback starts a file's trip to disk early: a file that will
// be synced later (when a build commits) is handed to the kernel for
// writing as soon as it is complete, so that the sync finds most of its
// pages written while the build did other work.
package writeback
