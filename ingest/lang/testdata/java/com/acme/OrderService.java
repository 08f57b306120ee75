package com.acme.orders;

import java.util.List;
import java.util.*;
import static java.util.Objects.requireNonNull;
import static org.junit.Assert.*;

/**
 * Places and tracks orders.
 */
public class OrderService extends BaseService<Order> implements Service, Auditable {
    private final OrderRepository repo;
    private List<Order> cache = new ArrayList<>();

    public OrderService(OrderRepository repo) {
        super(repo);
        this.repo = requireNonNull(repo);
    }

    OrderService() {
        this(new OrderRepository());
    }

    /** Places one order. */
    @Override
    public Order place(Order order, String... tags) {
        var validator = new Validator(order);
        validator.check();
        Order saved = repo.save(order);
        cache.forEach(this::audit);
        items.stream().map(Order::new).forEach(System.out::println);
        Runnable r = () -> notifyAll(saved);
        new Thread(new Runnable() {
            public void run() { helper(); }
        }).start();
        return saved;
    }

    public Order place(long id) {
        return place(repo.find(id));
    }

    private void audit(Order o) {
        super.audit(o);
    }

    static class Inner {
        void deep() { OrderService.util(); }
    }

    interface Listener extends java.util.EventListener {
        void onOrder(Order o);
    }

    enum Status implements Labeled {
        NEW, DONE;
        String label() { return name().toLowerCase(); }
    }

    record Line(String sku, int qty) {}

    @interface Audited {}
}
