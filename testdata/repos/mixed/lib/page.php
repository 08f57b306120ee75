<?php
namespace App;

class Page {
    public function render(): string {
        return "<p>hi</p>";
    }
}

function helper() { return new Page(); }
