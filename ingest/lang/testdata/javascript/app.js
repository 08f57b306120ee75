import React, { useState as useS, useEffect } from "react";
import * as path from "node:path";
import "./side-effect.css";
export { helper as util } from "./util.js";
export * from "./all.js";
const fs = require("fs");
const { join, resolve: res } = require("path");

/**
 * Greets someone.
 * @param {string} name
 */
export function greet(name) {
  console.log(format(name));
  return name;
}

// Base of all things.
class Base {}

export default class Widget extends Base {
  constructor(el) {
    super(el);
    this.store = new Store(el);
    this.id = makeId();
  }

  render() {
    this.store.load().then(this.onLoad);
    items.forEach(handleItem);
    return helper(this.id);
  }

  onClick = (e) => {
    this.render();
  };

  #secret() {}
}

const handler = async (req, res) => {
  await greet(req.name);
};

export const api = {
  get(url) { return fetch(url); },
  post: (url, body) => send(url, body),
};

function outer() {
  function inner() { deep(); }
  inner();
}

exports.legacy = function () { oldThing(); };
Widget.prototype.extra = function () { this.render(); };

async function lazy() {
  const m = await import("./lazy.js");
  m.run();
}

greet("top");
export { handler, outer };

window.SelectFilter = {
  init: function (id) { quickElement(id); },
};
module.exports = { start() { boot(); } };
