namespace Demo
{
    public interface IRepo { void Save(); }

    public class Repo : IRepo
    {
        public void Save() { }
    }
}
