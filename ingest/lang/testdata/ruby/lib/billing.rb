require "json"
require_relative "support/helpers"

# Billing namespace.
module Billing
  # An invoice.
  # Has lines.
  class Invoice < Base::Record
    include Comparable
    extend Forwardable

    def initialize(lines)
      @lines = lines
    end

    # Total amount.
    def total
      @lines.sum { |l| l.amount }.round(2)
      compute(tax_rate)
      self.class.audit!
      Formatter.new(self).render
      method(:print_line)
    end

    def self.build(*args)
      new(*args)
    end

    private

    def secret
      helper
    end
  end
end

def top_level(x)
  puts x
  Billing::Invoice.build(x)
end
