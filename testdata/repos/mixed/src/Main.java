package com.example;

/** Entry point. */
public class Main {
    public static void main(String[] args) {
        new Greeter().greet("world");
    }
}

class Greeter {
    void greet(String who) {
        System.out.println("hello " + who);
    }
}
