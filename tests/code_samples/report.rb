require "json"

# Formats reports for the dashboard.
module Reports
  class Daily
    def initialize(rows)
      @rows = rows
    end

    # Totals per day.
    def totals
      @rows.group_by { |r| r[:day] }.transform_values { |rs| rs.sum { |r| r[:amount] } }
    end

    def self.from_json(text)
      new(JSON.parse(text, symbolize_names: true))
    end
  end
end
