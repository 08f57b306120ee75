# Greets people.
class Greeter
  def greet(name)
    "hello #{name}"
  end
end
