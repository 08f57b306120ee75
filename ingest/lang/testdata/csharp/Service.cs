using System;
using System.Collections.Generic;
using IO = System.IO;
using static System.Math;

namespace Acme.Orders
{
    /// <summary>
    /// Handles orders.
    /// </summary>
    public class OrderService : BaseService, IOrderService, IDisposable
    {
        private readonly IRepository<Order> _repo;
        public int Count { get; set; }

        public OrderService(IRepository<Order> repo) : base(repo)
        {
            _repo = repo;
        }

        // Places an order.
        public async Task<Order> Place(Order order, int qty)
        {
            var validator = new Validator();
            Validator v2 = new();
            validator.Check(order);
            this.Log("placing");
            _repo.Save(order);
            Helpers.Audit(order);
            items.ForEach(Process);
            return await Task.FromResult(order);
        }

        internal void Process(Order o) { Console.WriteLine(o); }

        public void Dispose() { }
    }

    public interface IOrderService
    {
        Task<Order> Place(Order order, int qty);
    }

    public struct Point { public int X; }

    public record Money(decimal Amount, string Currency);

    public enum Status { Open, Closed }

    class Internal : List<string> { }
}
