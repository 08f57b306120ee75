package tools

import (
	"context"
	"os"
	"path/filepath"
	"sort"
	"strings"
	"testing"
)

// routesRepo is a repository with routes in every framework route_map
// reads, analyzed; it returns its root and index.
func routesRepo(t *testing.T) (string, Index) {
	t.Helper()
	files := map[string]string{
		"web/main.go": `package main

import "github.com/gin-gonic/gin"

// getUser answers, e.g. for r.GET("/comment-only", getUser).
func getUser(c *gin.Context) {}

func main() {
	r := gin.Default()
	r.GET("/users/:id", getUser)
	r.POST("/users", func(c *gin.Context) {})
	r.Run()
}
`,
		"chirouter/router.go": `package chirouter

import "github.com/go-chi/chi/v5"

func listPosts(w http.ResponseWriter, r *http.Request) {}

func Router(r chi.Router) {
	r.Get("/posts", listPosts)
}
`,
		"echoapp/app.go": `package echoapp

import "github.com/labstack/echo/v4"

func hello(c echo.Context) error { return nil }

func Register(e *echo.Echo) {
	e.GET("/hello", hello)
}
`,
		"srv/http.go": `package srv

import "net/http"

func health(w http.ResponseWriter, r *http.Request) {}
func getItem(w http.ResponseWriter, r *http.Request) {}

func Routes(mux *http.ServeMux) {
	http.HandleFunc("/health", health)
	mux.HandleFunc("GET /items/{id}", getItem)
}
`,
		"app.py": `"""A Flask app. Use it like:

@app.route("/docstring-only")
def example(): ...
"""
from flask import Flask
app = Flask(__name__)

@app.route("/login", methods=["GET", "POST"])
def login():
    return "ok"
`,
		"api.py": `from fastapi import FastAPI
app = FastAPI()

@app.get("/items/{item_id}")
async def read_item(item_id: int):
    return item_id
`,
		"shop/views.py": `def order_list(request):
    return None
`,
		"shop/urls.py": `from django.urls import path
from . import views

urlpatterns = [
    path("orders/", views.order_list),
]
`,
		"server.js": `const express = require('express');
const app = express();
function ping(req, res) { res.send('pong'); }
app.get('/ping', ping);
`,
		"UserController.java": `package demo;

@RestController
@RequestMapping("/api")
public class UserController {
    @GetMapping("/users")
    public String list() { return ""; }

    @PostMapping("/users")
    public String create() { return ""; }
}
`,
		"web/main_test.go": `package main

func TestRoutes() { r.GET("/test-only", getUser) }
`,
	}
	return analyzedRepo(t, files)
}

// TestRouteMap: every route the fixture declares, with its method, path,
// framework and handler symbol (decorated, same file, or unique name);
// inline handlers say so; test code, comments and docstrings are left
// out; filters narrow.
func TestRouteMap(t *testing.T) {
	root, ix := routesRepo(t)
	ctx := context.Background()
	out, err := RouteMap(ctx, ix, root, RouteMapInput{})
	if err != nil {
		t.Fatal(err)
	}
	var got []string
	for _, r := range out.Routes {
		got = append(got, strings.Join([]string{r.Framework, r.Method, r.Path, r.HandlerID, r.Resolved}, " "))
	}
	sort.Strings(got)
	want := []string{
		"chi GET /posts chirouter/router.go#listPosts:function same_file",
		"django ANY /orders/ shop/views.py#order_list:function unique_name",
		"echo GET /hello echoapp/app.go#hello:function same_file",
		"express GET /ping server.js#ping:function same_file",
		"fastapi GET /items/{item_id} api.py#read_item:function decorated",
		"flask GET,POST /login app.py#login:function decorated",
		"gin GET /users/:id web/main.go#getUser:function same_file",
		"gin POST /users  inline",
		"net/http ANY /health srv/http.go#health:function same_file",
		"net/http GET /items/{id} srv/http.go#getItem:function same_file",
		"spring GET /api/users UserController.java#UserController.list:method decorated",
		"spring POST /api/users UserController.java#UserController.create:method decorated",
	}
	if strings.Join(got, "\n") != strings.Join(want, "\n") {
		t.Errorf("routes:\n%s\nwant:\n%s", strings.Join(got, "\n"), strings.Join(want, "\n"))
	}
	f, err := RouteMap(ctx, ix, root, RouteMapInput{Framework: "spring", Method: "post"})
	if err != nil || len(f.Routes) != 1 || f.Routes[0].Path != "/api/users" {
		t.Errorf("framework spring, method post: %+v, %v", f, err)
	}
	if _, err := RouteMap(ctx, ix, root, RouteMapInput{Framework: "rails"}); err == nil {
		t.Error("an unknown framework was accepted")
	}
}

// TestAPIImpact: a route by METHOD and path gives its handler's flows and
// impact; a path two routes share is ambiguous; an inline handler is
// reported unresolved; a missing route is not found.
func TestAPIImpact(t *testing.T) {
	root, ix := routesRepo(t)
	ctx := context.Background()
	out, err := APIImpact(ctx, ix, root, APIImpactInput{Route: "GET /users/:id"})
	if err != nil || out.Status != "found" || out.Route.HandlerID != "web/main.go#getUser:function" || out.Impact == nil {
		t.Fatalf("GET /users/:id = %+v, %v; want found, handler getUser, with impact", out, err)
	}
	if out, err := APIImpact(ctx, ix, root, APIImpactInput{Route: "/api/users"}); err != nil || out.Status != "ambiguous" || len(out.Candidates) != 2 {
		t.Errorf("/api/users (GET and POST) = %+v, %v; want ambiguous with 2", out, err)
	}
	if out, err := APIImpact(ctx, ix, root, APIImpactInput{Route: "/users", Method: "post"}); err != nil || out.Status != "unresolved" {
		t.Errorf("POST /users (inline handler) = %+v, %v; want unresolved", out, err)
	}
	if _, err := APIImpact(ctx, ix, root, APIImpactInput{Route: "/nowhere"}); err == nil {
		t.Error("a missing route was found")
	}
}

// TestReadIndexedRefuses: the tools that read repository files (route_map,
// rename) read only regular files under the root, by a relative path
// without parent steps, and of bounded size.
func TestReadIndexedRefuses(t *testing.T) {
	root := t.TempDir()
	outside := filepath.Join(t.TempDir(), "secret")
	if err := os.WriteFile(outside, []byte("secret"), 0o644); err != nil {
		t.Fatal(err)
	}
	if err := os.Symlink(outside, filepath.Join(root, "link.go")); err != nil {
		t.Fatal(err)
	}
	big := filepath.Join(root, "big.go")
	if err := os.WriteFile(big, make([]byte, maxRouteFileBytes+1), 0o644); err != nil {
		t.Fatal(err)
	}
	for _, p := range []string{"../secret", "a/../../secret", outside, "link.go", "big.go", ""} {
		if b, err := readIndexed(root, p); err == nil {
			t.Errorf("readIndexed(%q) read %d bytes, want refused", p, len(b))
		}
	}
}
